"""Bad input gives a clear answer (findings, exit 1) or a usage error (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, run_cli

MODELS = REPO / "tests" / "data" / "models"


def run(tmp_path: Path, *argv: str):
    return run_cli(["mem", "--format", "json", *argv], cwd=tmp_path)


def codes(result) -> list[str]:
    return [f["code"] for f in result.json["findings"]]


def test_missing_fields(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"architectures": ["LlamaForCausalLM"], "hidden_size": 64})
    )
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert result.status == 1 and "Traceback" not in result.stderr
    finding = next(f for f in result.json["findings"] if f["code"] == "MM002")
    assert "num_hidden_layers" in finding["message"] and "vocab_size" in finding["message"]
    assert result.json["memory"]["verdict"] is None


def test_not_json_and_missing_file(tmp_path: Path) -> None:
    # A --model-config that holds no model config is a usage error (issue 11): one line, exit 2.
    (tmp_path / "config.json").write_text("{not json")
    result = run(tmp_path, "--model-config", "config.json")
    assert (result.status, result.stderr) == (
        2,
        "argtrace mem: --model-config config.json: not JSON (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1))\n",
    )
    result = run(tmp_path, "--model-config", "nope/config.json")
    assert (result.status, result.stderr) == (
        2,
        "argtrace mem: --model-config nope/config.json: no config.json there\n",
    )


def test_json_array_and_binary(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[1, 2]")
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00\x01binary")
    expected = {
        "a.json": "a.json holds no model config (no `architectures` or `model_type`)",
        "b.json": "not JSON (not UTF-8 text)",
    }
    for name, why in expected.items():
        result = run(tmp_path, "--model-config", name, "--gpu", "h100")
        assert (result.status, result.stderr) == (2, f"argtrace mem: --model-config {name}: {why}\n")


def test_unknown_architecture_is_sized_with_a_warning(tmp_path: Path) -> None:
    raw = json.loads((MODELS / "llama-3.1-8b" / "config.json").read_text())
    raw["architectures"] = ["BrandNewForCausalLM"]
    (tmp_path / "config.json").write_text(json.dumps(raw))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert "MM003" in codes(result)
    assert result.json["memory"]["verdict"] == "fits"


def test_gpu_too_small_for_the_weights(tmp_path: Path) -> None:
    result = run(tmp_path, "--model-config", str(MODELS / "qwen3-next-80b-a3b"), "--gpu", "rtx-4090")
    assert result.status == 1
    memory = result.json["memory"]
    assert memory["verdict"] == "oom" and memory["oom_stage"] == "weights"
    assert "MM001" in codes(result)


def test_unknown_gpu_and_bad_tp(tmp_path: Path) -> None:
    result = run(tmp_path, "--model-config", str(MODELS / "llama-3.1-8b"), "--gpu", "tpu-v9")
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr.startswith("argtrace mem: --gpu: unknown GPU profile 'tpu-v9'; known: a100-80g, ")
    # 32 linear value heads do not split 3 ways
    result = run(
        tmp_path, "--model-config", str(MODELS / "qwen3.5-9b"), "--gpu", "h100x3", "--", "--tp-size", "3"
    )
    assert result.status == 1 and "MM007" in codes(result), result.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run(tmp_path).status == 2
    result = run(tmp_path, "--model-config", str(MODELS / "llama-3.1-8b"), "--from-log", "missing.log")
    assert result.status == 2 and "Traceback" not in result.stderr
    result = run(tmp_path, "--model-config", str(MODELS / "llama-3.1-8b"), "--plot", "x.pdf")
    assert result.status == 2


def test_text_output_is_rendered(tmp_path: Path) -> None:
    result = run_cli(
        ["mem", "--model-config", str(MODELS / "qwen3.6-27b"), "--gpu", "rtx-pro-6000"], cwd=tmp_path
    )
    assert result.status in (0, 1)
    assert "Memory per GPU" in result.stdout and "max_total_num_tokens" in result.stdout
