"""The AST extraction behind the bundled indexes, on small synthetic sources (no framework needed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from argtrace.resolver import ast_index
from argtrace.resolver.ast_index import sglang_env_vars

SOURCE = """
import os
from sglang.srt.utils import get_bool_env_var

class ServerArgs:
    def _handle(self):
        if self.spec is not None:
            if not self.disable_cache:
                raise ValueError(
                    f"Spec for {arch} is not compatible with --strategy {self.strategy}."
                    "Use extra_buffer."
                )
        else:
            assert self.page_size % 4 == 0, f"page_size {self.page_size} must divide 4"
        msg = f"bad tp {self.model_config.tp}"
        raise RuntimeError(msg)

def reads():
    os.getenv("SGLANG_FOO", "1")
    get_bool_env_var("SGLANG_BAR")
    x = os.environ["CUDA_VISIBLE_DEVICES"]
    json.loads(server_args.json_model_override_args)
"""


def test_raise_sites(tmp_path: Path) -> None:
    pkg = tmp_path / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (pkg / "server_args.py").write_text(SOURCE)
    sites = ast_index.raise_sites([pkg / "server_args.py"], tmp_path)
    first, second, third = sites
    assert first["file"] == "sglang/srt/server_args.py" and first["function"] == "ServerArgs._handle"
    assert first["exception"] == "ValueError" and first["class"] == "ServerArgs"
    assert (
        first["message"]
        == "Spec for {arch} is not compatible with --strategy {self.strategy}.Use extra_buffer."
    )
    assert first["conditions"] == ["self.spec is not None", "not self.disable_cache"]
    assert first["fields"] == ["disable_cache", "spec", "strategy"]
    assert re.search(
        first["regex"], "ValueError: Spec for X is not compatible with --strategy no_buffer.Use extra_buffer."
    )
    assert second["exception"] == "AssertionError"
    assert second["conditions"] == ["not (self.spec is not None)", "not (self.page_size % 4 == 0)"]
    assert third["message"] == "bad tp {self.model_config.tp}"  # the local msg inlined
    assert "model_config.tp" in third["fields"]


def test_env_reads_and_json_fields(tmp_path: Path) -> None:
    pkg = tmp_path / "sglang"
    pkg.mkdir()
    (pkg / "mod.py").write_text(SOURCE)
    reads = ast_index.env_reads(pkg, tmp_path)
    assert reads["SGLANG_FOO"]["default"] == "1" and reads["SGLANG_FOO"]["where"] == "sglang/mod.py:19"
    assert {"SGLANG_BAR", "CUDA_VISIBLE_DEVICES"} <= set(reads)
    assert ast_index.json_loaded_fields([pkg / "mod.py"])["json_model_override_args"] == "attribute"


@pytest.mark.parametrize(
    ("signature", "call"),
    [
        # up to 0.5.10 (sglang/srt/environ.py): the new name first
        ("def _print_deprecated_env(new_name: str, old_name: str):", '("SGLANG_LOG_GC", "SGLANG_GC_LOG")'),
        # 0.5.11 on: the old name first, the new one optional
        ("def _print_deprecated_env(old_name: str, new_name=None):", '("SGLANG_GC_LOG", "SGLANG_LOG_GC")'),
    ],
)
def test_sglang_renames_are_read_by_the_parameters_names(tmp_path: Path, signature: str, call: str) -> None:
    # 0.5.11 flipped the arguments; read in the old order, the schemas of 0.5.11-0.5.17 called the new name
    # deprecated (the releases' own environ.py, checked on the 0.5.10.post1 and 0.5.11 wheels)
    environ = tmp_path / "sglang" / "srt" / "environ.py"
    environ.parent.mkdir(parents=True)
    environ.write_text(f"{signature}\n    pass\n\n\n_print_deprecated_env{call}\n")
    (entry,) = [e for e in sglang_env_vars(tmp_path) if e.get("deprecated")]
    assert (entry["name"], entry["replacement"]) == ("SGLANG_GC_LOG", "SGLANG_LOG_GC")
