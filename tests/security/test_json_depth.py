"""JSON a launch, a model directory or a server supplies never crashes argtrace by its depth.

CPython's ``json.loads`` recurses once per ``[``/``{`` and raises ``RecursionError`` near 1,000 levels,
which no ``except ValueError`` catches. ``argtrace.safe_json.loads`` turns it into the
``JSONDecodeError`` every caller handles. The fuzz reproducer ``shell-deep-json`` found one call site
(PA011's every-release test, new that day); ten more read such text with the plain decoder: a JSON flag's
value (``--kv-transfer-config``, ``--speculative-config`` when sizing), a pasted HTTP body, a replica's
transfer config, a safetensors header and index, ``generation_config.json``, a ``--baseline`` file, and
a PEP 610 ``direct_url.json`` (which now catches ``RecursionError`` itself).
The inventory below keeps the rest to argtrace's own data files and its own subprocesses' output.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import run_cli

SRC = Path(__file__).resolve().parents[2] / "src" / "argtrace"
DEEP = "[" * 20_000 + "]" * 20_000

# Modules whose plain ``json.loads`` reads argtrace's own files (bundled data, its cache, its resolver's and
# collector's output, shellcheck's report) or handles RecursionError itself (live.py, memory/config.py,
# frameworks/site_packages.py, which imports nothing of argtrace but the host seam).
# A new call on text a user, a launch or a server supplies uses ``safe_json.loads`` instead.
OWN_DATA = {
    # package_data.bundled_json: every bundled data file read by its path in the package
    "package_data.py": 1,
    "commands/why_call.py": 1,  # frameworks/data/vllm_frontend_options.json
    "frameworks/entrypoints.py": 1,
    "frameworks/feature_pairs.py": 1,
    "frameworks/flag_replacements.py": 2,  # frameworks/data/flag_replacements.json, vllm_forwarded_flags.json
    "frameworks/model_caps.py": 1,  # frameworks/data/model_caps/<framework>.json.gz
    "frameworks/model_refs.py": 1,  # frameworks/data/model_refs.json
    "frameworks/plugins.py": 1,
    "frameworks/release_index.py": 1,
    "frameworks/schema.py": 2,
    "frameworks/schema_pack.py": 5,  # the bundled schemas re-read while packing them (gen_schemas --pack)
    "frameworks/schema_store.py": 2,
    "frameworks/site_packages.py": 1,
    "frameworks/sglang_diffusion.py": 1,
    "frameworks/vllm.py": 1,  # frameworks/data/vllm_kvs_fallback.json
    "frameworks/vllm_config_file.py": 1,  # frameworks/data/vllm_config_file.json
    "frameworks/vllm_from_cli.py": 1,  # frameworks/data/vllm_from_cli.json
    "frameworks/vllm_tokenizer_modes.py": 1,  # frameworks/data/vllm_tokenizer_modes.json
    "frameworks/vllm_model_loaders.py": 1,  # frameworks/data/vllm_model_loaders.json
    "frameworks/vllm_env_fallbacks.py": 1,  # frameworks/data/vllm_env_fallbacks.json
    "frameworks/vllm_engine_overrides.py": 1,  # frameworks/data/vllm_engine_overrides.json
    "frameworks/sglang_helpers.py": 1,  # frameworks/data/sglang_helpers.json (generated, sgl22)
    "layers/start_overrides.py": 1,  # frameworks/data/sglang_overrides.json (generated, RS055)
    "commands/why_modeltype.py": 1,  # data/transformers_model_types.json (generated, why22)
    "frameworks/vllm_demo.py": 1,
    "gpus.py": 1,
    "layers/live.py": 1,
    "layers/log/lines.py": 1,  # a docker json-file record's string literal (cannot nest; runs on nodes)
    "layers/log/signatures.py": 1,
    "layers/memory/config.py": 2,  # and data/config_defaults.json
    "layers/memory/framework_probe.py": 2,
    "layers/memory/framework_sizing.py": 3,
    "layers/memory/vllm_probe.py": 2,
    "layers/resolution.py": 1,
    "layers/shell/shellcheck.py": 1,
    "layers/transport/images.py": 1,
    "layers/transport/skypilot.py": 1,
    "layers/transport/systemd_syntax.py": 1,
    "mcp_server.py": 1,
    "remote/collector.py": 2,
    "remote/ssh.py": 1,
    "resolver/ast_parser.py": 1,
    "resolver/assert_store.py": 1,  # frameworks/data/asserts/<framework>.json.gz
    "resolver/cache.py": 1,
    "resolver/cache_write.py": 1,  # a resolver environment's manifest (the key)
    "resolver/dump_overlay.py": 1,
    "resolver/environments.py": 1,
    "resolver/host_main.py": 2,  # argtrace's own job lines and the JSON prep list it passes a host
    "resolver/hosts.py": 2,  # the host's reply lines (host_main.py writes them), argtrace's fake GPU profile
    "resolver/message_store.py": 1,
    "resolver/schema_gen.py": 2,
    "resolver/stubs/_argtrace_stubs.py": 1,
}


def _plain_json_loads() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "safe_json.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "loads"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "json"
            ):
                found[path.relative_to(SRC).as_posix()] += 1
    return found


def test_plain_json_loads_only_reads_argtraces_own_data() -> None:
    assert dict(_plain_json_loads()) == OWN_DATA


def test_a_json_flag_nested_too_deep_is_refused_not_a_crash() -> None:
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0", "-c",
         f"vllm serve /m --kv-transfer-config '{DEEP}'"]
    )  # fmt: skip
    assert "internal error" not in result.stderr
    assert [(f["code"], f["severity"]) for f in result.json["findings"] if f["severity"] != "info"] == [
        ("PA011", "error")
    ]


def test_sizing_a_speculative_config_nested_too_deep_is_not_a_crash() -> None:
    model = Path(__file__).resolve().parents[1] / "data" / "models" / "qwen3.6-27b"
    result = run_cli(
        ["mem", "--format", "json", "--gpu", "h100", "--model-config", str(model), "--",
         "vllm", "serve", "/m", "--speculative-config", DEEP]
    )  # fmt: skip
    assert "internal error" not in result.stderr
    assert result.status == 0


@pytest.mark.parametrize("name", ["generation_config.json", "model.safetensors.index.json"])
def test_a_model_file_nested_too_deep_is_not_a_crash(tmp_path: Path, name: str) -> None:
    model = Path(__file__).resolve().parents[1] / "data" / "models" / "qwen3.6-27b"
    (tmp_path / "config.json").write_text((model / "config.json").read_text())
    (tmp_path / name).write_text(DEEP)
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0", "--gpu", "h100",
         "--model-config", str(tmp_path), "-c", f"vllm serve {tmp_path}"]
    )  # fmt: skip
    assert "internal error" not in result.stderr
    assert result.stdout.startswith("{")


def test_a_baseline_nested_too_deep_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "baseline.json").write_text(DEEP)
    (tmp_path / "launch.sh").write_text("#!/bin/bash\nvllm serve /m --port 8000\n")
    result = run_cli(["lint", "--baseline", str(tmp_path / "baseline.json"), str(tmp_path)])
    assert result.status == 2
    assert result.stderr.strip() == (
        f"argtrace lint: --baseline {tmp_path / 'baseline.json'}: not JSON "
        "(nested too deeply: line 1 column 1 (char 0))"
    )


def test_a_refused_json_value_nested_too_deep_gets_its_fix_not_a_crash() -> None:
    # the fix text of a JSON value whose double quotes reached the parser reads where the JSON breaks
    # (layers/parser/json_values.py): nested 10^4 deep, that is the first character
    deep = "[" * 20_000 + '"'
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0",
         "-c", f"vllm serve /m --speculative-config '{deep}'"]
    )  # fmt: skip
    assert "internal error" not in result.stderr
    (pa011,) = [f for f in result.json["findings"] if f["code"] == "PA011"]
    assert "the JSON breaks at character 1 (nested too deeply" in pa011["fix"]
