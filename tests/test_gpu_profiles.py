"""The GPU profiles ``--gpu`` offers, generated from quoted sources (``scripts/gen_gpu_profiles.py``), the
spellings users write for them, what the memory layer and SGLang's own code make of one, and RS030 (vLLM's
Triton attention backend refuses an fp8 KV cache below SM89; the only backend below SM75). The texts are real
reports' (URLs beside them) or the frameworks' own messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.resolver import environments
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def first(text: str, framework: str | None = None) -> dict[str, Any]:
    match: dict[str, Any] = explain(text, framework)["matches"][0]
    return match


def findings(argv: list[str], cwd: Path, code: str) -> list[tuple[str, str, str]]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv], cwd=cwd)
    return [(f["severity"], f["basis"], f["message"]) for f in result.json["findings"] if f["code"] == code]


def settings(match: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    return [(s["name"], s.get("flag"), s.get("framework")) for s in match["settings"]]


# --- GPU profiles and RS030 --------------------------------------------------------------------------------


def test_gpu_profiles_come_from_their_recorded_sources() -> None:
    from argtrace.gpus import GPUS, parse_gpu_spec

    assert sorted(GPUS) == [
        "a10", "a100-40g", "a100-80g", "a40", "a800-80g", "b200", "gh200", "h100", "h100-nvl", "h20",
        "h200", "l20", "l4", "l40s", "mi300x", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-a6000",
        "rtx-pro-6000", "t4", "v100", "v100-16g",
    ]  # fmt: skip
    v100 = parse_gpu_spec("v100x2")
    assert v100.count == 2 and (v100.profile.label, v100.profile.compute_capability) == (
        "Tesla V100-PCIE-32GB",
        (7, 0),
    )
    assert [(GPUS[n].smi_total_mib, GPUS[n].total_bytes, GPUS[n].flashinfer) for n in ("t4", "a100-40g")] == [
        (15360, 15848429322, True),  # 14.76 GiB as torch rounds it
        (40536, 42298834944, True),
    ]
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_gpu_profiles.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert (check.returncode, check.stdout) == (0, "src/argtrace/data/gpu_profiles.json: up to date\n")


def test_gpu_profiles_l4_l20_h20_a800_rtx3090_rtx5090_parsed_from_their_quoted_lines() -> None:
    from argtrace.gpus import GPUS

    got = {
        n: (GPUS[n].label, GPUS[n].smi_total_mib, GPUS[n].total_bytes, GPUS[n].compute_capability)
        for n in ("l4", "l20", "h20", "a800-80g", "rtx-3090", "rtx-5090")
    }
    assert got == {
        "l4": ("NVIDIA L4", 23034, 23654532383, (8, 9)),  # 22.03 GiB as torch rounds it
        "l20": ("NVIDIA L20", 46068, 47813723423, (8, 9)),  # 44.53 GiB
        "h20": ("NVIDIA H20", 97871, 102005473280, (9, 0)),  # 95.00 GiB
        "a800-80g": ("NVIDIA A800-SXM4-80GB", 81920, 85179938898, (8, 0)),  # 79.33 GiB ("capacty", torch 2.1)
        "rtx-3090": ("NVIDIA GeForce RTX 3090", 24576, 25447681229, (8, 6)),  # 23.70 GiB
        "rtx-5090": ("NVIDIA GeForce RTX 5090", 32607, 33677180928, (12, 0)),  # deviceQuery's bytes
    }
    data = json.loads((ROOT / "src/argtrace/data/gpu_profiles.json").read_text())
    h20 = next(p for p in data["profiles"] if p["name"] == "h20")
    assert h20["sources"]["compute_capability"] == {
        "url": "https://github.com/sgl-project/sglang/issues/3685",
        "line": "GPU 0,1,2,3,4,5,6,7: NVIDIA H20 / GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0",
    }


def test_gpu_profiles_a40_rtx_a6000_h100_nvl_gh200_parsed_from_device_query_lines() -> None:
    """deviceQuery's exact bytes (no torch rounding) and its compute capability line; nvidia-smi's MiB."""
    from argtrace.gpus import GPUS, parse_gpu_spec

    got = {
        n: (GPUS[n].label, GPUS[n].smi_total_mib, GPUS[n].total_bytes, GPUS[n].compute_capability)
        for n in ("a40", "rtx-a6000", "h100-nvl", "gh200")
    }
    assert got == {
        "a40": ("NVIDIA A40", 46068, 47608692736, (8, 6)),
        "rtx-a6000": ("NVIDIA RTX A6000", 49140, 51160023040, (8, 6)),
        "h100-nvl": ("NVIDIA H100 NVL", 95830, 99861594112, (9, 0)),
        "gh200": ("NVIDIA GH200 480GB", 97871, 102005473280, (9, 0)),
    }
    assert parse_gpu_spec("RTX A6000x2").profile.name == "rtx-a6000"
    data = json.loads((ROOT / "src/argtrace/data/gpu_profiles.json").read_text())
    a6000 = next(p for p in data["profiles"] if p["name"] == "rtx-a6000")
    assert a6000["sources"]["total_bytes"]["url"] == "https://hpc-community.unige.ch/t/3741"
    assert "total_bytes_rounded" not in a6000


@pytest.mark.parametrize(
    ("spec", "name", "count", "given"),
    [
        ("L4", "l4", 1, False),
        ("NVIDIA L4", "l4", 1, False),
        ("nvidia_l4x2", "l4", 2, True),
        ("h20", "h20", 1, False),
        ("H20 x8", "h20", 8, True),
        ("4090", "rtx-4090", 1, False),
        ("RTX 4090", "rtx-4090", 1, False),
        ("GeForce RTX 3090", "rtx-3090", 1, False),
        ("3090x4", "rtx-3090", 4, True),
        ("A800-SXM4-80GB", "a800-80g", 1, False),
        ("NVIDIA A100-SXM4-40GB", "a100-40g", 1, False),
        ("Tesla T4", "t4", 1, False),
        ("mi300x", "mi300x", 1, False),
        ("mi300xx8", "mi300x", 8, True),
    ],
)
def test_gpu_spellings_users_write(spec: str, name: str, count: int, given: bool) -> None:
    from argtrace.gpus import count_given, parse_gpu_spec

    selection = parse_gpu_spec(spec)
    assert (selection.profile.name, selection.count, count_given(spec)) == (name, count, given)


def test_gpu_spellings_that_name_no_one_profile() -> None:
    from argtrace.gpus import parse_gpu_spec

    # A10G (no torch total found yet) and a bare "a100" (40 or 80 GB?) are refused, not guessed
    for spec in ("a10g", "a100", "rtx"):
        with pytest.raises(ValueError, match=f"unknown GPU profile '{spec}'; known: a10, a100-40g, "):
            parse_gpu_spec(spec)


def test_mem_on_an_l4_sizes_the_kv_cache_from_its_profile(tmp_path: Path) -> None:
    model = ROOT / "tests" / "data" / "models" / "llama-3.1-8b"
    argv = ["mem", "--format", "json", "--model-config", str(model), "--gpu", "NVIDIA L4", "--framework"]
    sglang = run_cli([*argv, "sglang"], cwd=tmp_path).json["memory"]
    assert sglang["gpu"] == {
        "name": "l4", "label": "NVIDIA L4", "total_bytes": 23654532383, "smi_total_mib": 23034, "count": 1,
    }  # fmt: skip
    # SGLang 0.5.10.post1 reserves 4096 MB below 23034 MiB: 0.822 of the card, 21773 tokens of 128 KiB
    assert (sglang["mem_fraction_static"], sglang["max_total_num_tokens"], sglang["verdict"]) == (
        0.822,
        21773,
        "fits",
    )
    check = run_cli(
        [
            "check", "--format", "json", "--no-resolve", "--gpu", "l4", "--model-config", str(model),
            "-c", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
        ],
        cwd=tmp_path,
    ).json  # fmt: skip
    assert (check["memory"]["verdict"], check["memory"]["available_kv_cache_bytes"]) == ("fits", 3374657897)
    assert [f["code"] for f in check["findings"] if f["severity"] != "info"] == []


@pytest.mark.skipif(
    not environments.find_environment("sglang", "0.5.10.post1"),
    reason="no resolver environment for sglang==0.5.10.post1 (argtrace resolver add)",
)
def test_sglang_s_own_code_sizes_an_l4(tmp_path: Path) -> None:
    # SGLang 0.5.10.post1 run on the fake L4 (23034 MiB, 22.03 GiB, SM89): its own defaults for that card
    model = ROOT / "tests" / "data" / "models" / "llama-3.1-8b"
    data = run_cli(
        [
            "check", "--format", "json", "--gpu", "l4", "--framework-version", "0.5.10.post1",
            "--model-config", str(model), "-c", "python3 -m sglang.launch_server --model-path org/llama",
        ],
        cwd=tmp_path,
    ).json  # fmt: skip
    assert data["resolution"]["gpu"]["product"] == "NVIDIA L4"
    got = {s["name"]: s["effective"] for s in data["settings"]}
    assert [got[k] for k in ("chunked_prefill_size", "cuda_graph_max_bs", "mem_fraction_static")] == [
        2048,
        24,
        0.822,
    ]
    assert got["attention_backend"] == "flashinfer"
    assert data["memory"]["max_total_num_tokens"] == 21773
    # 21773 tokens hold less than one request of the model's 131072: the one warning
    assert [f["code"] for f in data["findings"] if f["severity"] != "info"] == ["RS021"]


def test_why_reads_a_v100_s_capacity_from_torch_s_message() -> None:
    from argtrace.commands.why_signatures import gpu_from_text

    assert gpu_from_text("GPU 0 has a total capacity of 31.74 GiB of which 20.00 MiB is free") == "v100"
    assert gpu_from_text("(GPU 0; 14.76 GiB total capacity; 9.70 GiB already allocated") is None  # old form


RS030_V100 = (
    "--kv-cache-dtype fp8 on Tesla V100-PCIE-32GB (compute capability 7.0): vllm 0.33.0 has no "
    "FlashAttention (SM80+) or FlashInfer (SM75+) backend for it, and the Triton attention backend raises "
    '"FP8 KV cache is not supported by the Triton attention backend ... native FP8 (fp8e4nv) requires SM89+" '
    "(TritonAttentionImpl.__init__, vllm/v1/attention/backends/triton_attn.py; vllm 0.24.0-0.33.0)"
)


def test_rs030_fp8_kv_cache_on_a_v100(tmp_path: Path) -> None:
    argv = [
        "--gpu",
        "v100",
        "--framework-version",
        "0.33.0",
        "-c",
        "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8",
    ]
    assert findings(argv, tmp_path, "RS030") == [("error", "framework-code", RS030_V100)]
    # with no release named, 0.33.0 stands in: a warning resting on it
    unnamed = findings(argv[:2] + argv[4:], tmp_path, "RS030")
    assert [(s, b) for s, b, _ in unnamed] == [("warning", "assumed")]


@pytest.mark.parametrize(
    ("gpu", "version", "dtype"),
    [
        ("t4", "0.33.0", "fp8"),  # SM75: FlashInfer's floor in other releases; not proven
        ("a100-40g", "0.33.0", "fp8_e4m3"),
        ("h100", "0.33.0", "fp8"),
        ("v100", "0.20.2", "fp8"),  # the release has no such check
        ("v100", "0.33.0", "auto"),
    ],
)
def test_rs030_stays_quiet(gpu: str, version: str, dtype: str, tmp_path: Path) -> None:
    argv = [
        "--gpu",
        gpu,
        "--framework-version",
        version,
        "-c",
        f"vllm serve Qwen/Qwen3-8B --kv-cache-dtype {dtype}",
    ]
    assert findings(argv, tmp_path, "RS030") == []
    assert (
        findings(["-c", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8"], tmp_path, "RS030") == []
    )  # no --gpu
