"""Bad input gives a clear answer (findings, exit 1) or a usage error (exit 2), never a traceback."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

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
        "argtrace mem: --model-config config.json: not valid JSON (line 1: Expecting property name "
        "enclosed in double quotes)\n",
    )
    result = run(tmp_path, "--model-config", "nope/config.json")
    missing = "argtrace mem: --model-config nope/config.json: no such file\n"
    assert (result.status, result.stderr) == (2, missing)


def test_json_array_and_binary(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[1, 2]")
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00\x01binary")
    expected = {
        "a.json": "expected a JSON object, got list",
        "b.json": "cannot read ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)",
    }
    for name, why in expected.items():
        result = run(tmp_path, "--model-config", name, "--gpu", "h100")
        assert (result.status, result.stderr) == (2, f"argtrace mem: --model-config {name}: {why}\n")


def test_unknown_architecture_is_sized_with_a_note(tmp_path: Path) -> None:
    raw = json.loads((MODELS / "llama-3.1-8b" / "config.json").read_text())
    raw["architectures"] = ["BrandNewForCausalLM"]
    (tmp_path / "config.json").write_text(json.dumps(raw))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    # what argtrace could size, not a fault of the launch: a note, and a launch that fits exits 0 with no
    # warning (a correct gpt-oss launch got an MM003 warning on the SGLang path, mem32)
    assert [(f["code"], f["severity"]) for f in result.json["findings"]] == [
        ("MM003", "info"),
        ("MM008", "info"),
    ]
    assert result.json["findings"][0]["message"] == (
        "architecture BrandNewForCausalLM is not one argtrace knows; sized as a dense decoder"
    )
    assert (result.status, result.json["memory"]["verdict"]) == (0, "fits")


def test_gpu_too_small_for_the_weights(tmp_path: Path) -> None:
    result = run(tmp_path, "--model-config", str(MODELS / "qwen3-next-80b-a3b"), "--gpu", "rtx-4090")
    assert result.status == 1
    memory = result.json["memory"]
    assert memory["verdict"] == "oom" and memory["oom_stage"] == "weights"
    assert "MM001" in codes(result)


def test_unknown_gpu_and_bad_tp(tmp_path: Path) -> None:
    result = run(tmp_path, "--model-config", str(MODELS / "llama-3.1-8b"), "--gpu", "tpu-v9")
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr.startswith(
        "argtrace mem: --gpu: unknown GPU profile 'tpu-v9'; known: a10, a100-40g, a100-80g, a40, a800-80g, "
    )
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


LLAMA = json.loads((MODELS / "llama-3.1-8b" / "config.json").read_text())


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("num_hidden_layers", 1e11, "num_hidden_layers = 100000000000 (expected 1 to 10000)"),
        ("num_hidden_layers", -5, "num_hidden_layers = -5 (expected 1 to 10000)"),
        ("num_hidden_layers", 0, "num_hidden_layers = 0 (expected 1 to 10000)"),
        ("hidden_size", 1e30, "hidden_size = 1e+30 (expected 1 to 16777216)"),
        ("intermediate_size", 10**14, "intermediate_size = 100000000000000 (expected 0 to 16777216)"),
        ("num_key_value_heads", -3, "num_kv_heads = -3 (expected 0 to 16777216)"),
        ("max_position_embeddings", 1e300, "context_length = 1e+300 (expected 0 to 17179869184)"),
    ],
)
def test_absurd_sizes_are_a_finding_not_a_crash(
    tmp_path: Path, key: str, value: object, problem: str
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA, key: value}))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert (result.status, result.stderr) == (1, "")
    assert [(f["code"], f["message"]) for f in result.json["findings"]] == [
        (
            "MM002",
            f"LlamaForCausalLM: config.json has values no model has: {problem}; memory cannot be sized",
        )
    ]


@pytest.mark.parametrize("value", ["NaN", "Infinity", '"abc"', "null", "[1]", "1.5"])
def test_sizes_that_are_not_integers_are_missing(tmp_path: Path, value: str) -> None:
    text = json.dumps(LLAMA).replace('"num_hidden_layers": 32', f'"num_hidden_layers": {value}')
    (tmp_path / "config.json").write_text(text)
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert (result.status, result.stderr) == (1, "")
    assert [(f["code"], f["message"]) for f in result.json["findings"]] == [
        (
            "MM002",
            "LlamaForCausalLM: config.json lacks num_hidden_layers; memory is not sized (the checkpoint's "
            "config class fills absent fields with its defaults, which argtrace does not guess; real "
            "checkpoints such as Gemma 3 leave vocab_size out)",
        )
    ]
    # present but not an integer: a broken config, an error
    assert result.json["findings"][0]["severity"] == "error"


def test_a_field_the_checkpoint_leaves_to_its_config_class_is_a_note_in_check(tmp_path: Path) -> None:
    """A field absent from a config.json whose configuration class argtrace does not know (no model_type):
    `mem` cannot size it (an error: the sizing was asked for), `check` says so as a note (no fault of the
    launch). With a model_type, the class's default fills it (next test)."""
    config = {**LLAMA}
    del config["vocab_size"]
    del config["model_type"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert [(f["code"], f["severity"]) for f in result.json["findings"]] == [("MM002", "error")]
    command = "python3 -m sglang.launch_server --model-path /m"
    options = ["--no-resolve", "--format", "json", "--model-config", "config.json", "--gpu", "h100"]
    checked = run_cli(["check", *options, "--framework-version", "0.5.10.post1", "-c", command], cwd=tmp_path)
    assert checked.status == 0, checked.stderr
    assert [(f["code"], f["severity"]) for f in checked.json["findings"] if f["code"] == "MM002"] == [
        ("MM002", "info")
    ]


def test_a_field_left_to_the_config_class_takes_the_class_default(tmp_path: Path) -> None:
    """config.json leaves out what equals its configuration class's default (transformers'
    to_diff_dict) and the framework's transformers fills it back: LlamaConfig's vocab_size 32000, read from
    transformers' configuration_llama.py by scripts/gen_config_defaults.py; a note says so."""
    config = {**LLAMA}
    del config["vocab_size"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert "MM002" not in codes(result)
    (note,) = [n for n in result.json["memory"]["notes"] if n.startswith("config.json leaves out")]
    assert note.startswith(
        "config.json leaves out what its configuration class fills in when the framework loads it: "
        "vocab_size 32000 (llama's default, transformers "
    )


def test_absurd_quantization_block_is_not_an_overflow(tmp_path: Path) -> None:
    config = {**LLAMA, "quantization_config": {"quant_method": "fp8", "weight_block_size": [1e400, 128]}}
    (tmp_path / "config.json").write_text(json.dumps(config).replace("Infinity", "1e400"))
    result = run(tmp_path, "--model-config", "config.json", "--gpu", "h100")
    assert result.status in (0, 1) and result.stderr == ""
    assert "MM002" not in codes(result)


def test_config_nested_too_deep(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    result = run(tmp_path, "--model-config", "config.json")
    assert (result.status, result.stdout, result.stderr) == (
        2,
        "",
        "argtrace mem: --model-config config.json: not valid JSON (nested too deeply)\n",
    )


def _alarm(seconds: int) -> None:
    """A read that would block forever fails the test instead of hanging the suite."""

    def fail(signum: int, frame: object) -> None:
        raise TimeoutError(f"still blocked after {seconds} s")

    signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)


def test_config_fifo_and_device_are_refused_unopened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "config.json")
    _alarm(20)
    try:
        fifo = run(tmp_path, "--model-config", "config.json")
        device = run(tmp_path, "--model-config", "/dev/zero")
    finally:
        signal.alarm(0)
    assert (fifo.status, fifo.stderr) == (
        2,
        "argtrace mem: --model-config config.json: is a named pipe (FIFO), not a regular file\n",
    )
    assert (device.status, device.stderr) == (
        2,
        "argtrace mem: --model-config /dev/zero: is a character device, not a regular file\n",
    )


def test_config_path_component_too_long(tmp_path: Path) -> None:
    long = "/tmp/" + "a" * 300 + "/config.json"
    result = run(tmp_path, "--model-config", long)
    assert (result.status, result.stderr) == (2, f"argtrace mem: --model-config {long}: file name too long\n")


def test_from_log_fifo_is_a_usage_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "server.log")
    _alarm(20)
    try:
        result = run(tmp_path, "--model-config", str(MODELS / "llama-3.1-8b"), "--from-log", "server.log")
    finally:
        signal.alarm(0)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == (
        "argtrace mem: --from-log server.log: is a named pipe (FIFO), not a regular file\n"
    )


def test_a_fifo_among_the_weights_is_not_opened(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    os.mkfifo(tmp_path / "model-00001-of-00001.safetensors")
    _alarm(20)
    try:
        result = run(tmp_path, "--model-config", ".", "--gpu", "h100")
    finally:
        signal.alarm(0)
    assert (result.status, result.stderr) == (0, "")
    assert result.json["memory"]["weights_source"] == "config"  # counted from the config, not the headers
