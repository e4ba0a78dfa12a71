"""A resolving ``check`` runs the framework's code in argtrace's own environment, and nothing else (probe of
session 13, docs/redaction.md "Never run").

Found by planting marker-writing programs and files:
- a model directory whose ``config.json`` maps ``AutoConfig`` to ``configuration_evil.py``, with the launch's
  ``--trust-remote-code``: transformers imported it inside the resolver (``check``, ``lint``, ``fix``; SGLang
  and vLLM). Such a launch is no longer resolved (``RS004``, ``layers/remote_code.py``).
- a ``python3`` earlier on the caller's ``PATH``: the resolver's fake ``nvidia-smi`` (``#!/usr/bin/env -S
  python3``) ran it on every resolving check. The resolver environment's own ``bin`` now follows the stubs'
  (``resolver/stubs/sitecustomize.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.layers.remote_code import remote_code_reason
from tests.conftest import REPO
from tests.needs import unmet

SGLANG = "0.5.23"
needs_sglang = pytest.mark.skipif(bool(unmet([f"resolver:sglang=={SGLANG}"])), reason="no sglang resolver")
CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_attention_heads": 14,
    "num_hidden_layers": 24,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "torch_dtype": "bfloat16",
}


def model_dir(root: Path, marker: Path | None) -> Path:
    path = root / "model"
    path.mkdir()
    config = dict(CONFIG)
    if marker is not None:
        config["auto_map"] = {"AutoConfig": "configuration_evil.EvilConfig"}
        (path / "configuration_evil.py").write_text(
            f"open({str(marker)!r}, 'w').write('ran')\n"
            "from transformers import Qwen2Config\nclass EvilConfig(Qwen2Config):\n    pass\n"
        )
    (path / "config.json").write_text(json.dumps(config))
    return path


def argtrace(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argtrace", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def clean_env(tmp_path: Path, path: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARGTRACE_")}
    env.update(PYTHONPATH=str(REPO / "src"), ARGTRACE_NO_CACHE="1", NO_COLOR="1")
    if path is not None:
        env["PATH"] = path
    return env


@pytest.mark.parametrize(
    ("argv", "files", "expected"),
    [
        (["--trust-remote-code"], {"config.json": {"auto_map": {"AutoConfig": "c.C"}}},
         "auto_map in config.json"),
        (["--trust_remote_code"], {"tokenizer_config.json": {"auto_map": {"AutoTokenizer": ["t.T", None]}}},
         "auto_map in tokenizer_config.json"),
        (["--trust"], {"config.json": {}, "modeling_x.py": ""},
         "Python files beside config.json (modeling_x.py)"),
        (["--config", "c.yaml"], {"config.json": {"auto_map": {"AutoConfig": "o/r--c.C"}}},
         "auto_map in config.json"),
        (["--tp-size", "2"], {"config.json": {"auto_map": {"AutoConfig": "c.C"}}}, None),
        (["--trust-remote-code"], {"config.json": {"architectures": ["Qwen2ForCausalLM"]}}, None),
    ],
)  # fmt: skip
def test_remote_code_reason(
    tmp_path: Path, argv: list[str], files: dict[str, object], expected: str | None
) -> None:
    for name, content in files.items():
        (tmp_path / name).write_text(json.dumps(content) if name.endswith(".json") else str(content))
    reason = remote_code_reason(argv, tmp_path)
    if expected is None:
        assert reason is None
    else:
        assert reason == (
            f"the model's own code would run ({expected}, with --trust-remote-code or a --config file that "
            "may set it); argtrace never runs code a launch names"
        )


@needs_sglang
def test_the_models_own_code_never_runs(tmp_path: Path) -> None:
    # before: the marker appeared (transformers imported configuration_evil.py inside the resolver)
    marker = tmp_path / "MARKER"
    model = model_dir(tmp_path, marker)
    command = f"python3 -m sglang.launch_server --model-path {model} --trust-remote-code --tp-size 1"
    done = argtrace(
        ["check", "--no-shellcheck", "--format", "json", "-c", command], clean_env(tmp_path), tmp_path
    )
    assert not marker.exists()
    report = json.loads(done.stdout)
    assert [f["message"] for f in report["findings"] if f["code"] == "RS004"] == [
        "resolution skipped: the model's own code would run (auto_map in config.json, with "
        "--trust-remote-code or a --config file that may set it); argtrace never runs code a launch names"
    ]


@needs_sglang
def test_a_python3_on_the_callers_path_never_runs(tmp_path: Path) -> None:
    # before: the fake nvidia-smi's `#!/usr/bin/env -S python3` found this one
    marker = tmp_path / "MARKER"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python"):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "$@" > {marker}\n')
        (bin_dir / name).chmod(0o755)
    model = model_dir(tmp_path, None)
    env = clean_env(tmp_path, f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    command = f"python3 -m sglang.launch_server --model-path {model} --tp-size 1"
    done = argtrace(["check", "--no-shellcheck", "--format", "json", "-c", command], env, tmp_path)
    assert not marker.exists(), marker.read_text()
    assert json.loads(done.stdout)["resolution"]["status"] == "ok"


def test_the_launchs_bytecode_prefix_and_iconv_modules_never_reach_the_resolver() -> None:
    from argtrace.resolver.environments import launch_env_for_resolver

    env = launch_env_for_resolver({"PYTHONPYCACHEPREFIX": "/evil/pyc", "GCONV_PATH": "/evil/gconv", "A": "1"})
    assert {k: v for k, v in env.items() if k not in ("PATH", "HOME")} == {"A": "1"}
