"""KServe's Hugging Face runtime ``python -m huggingfaceserver`` read as vLLM's server with KServe's own
options taken out (frameworks/kserve_hf.py), on the multi-node runtime of
tests/data/multinode/kserve_hf_multinode.yaml (after kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912
config/runtimes/kserve-huggingfaceserver-multinode.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argtrace.frameworks.kserve_hf import source, split_kserve
from tests.conftest import run_cli

FIXTURE = Path(__file__).parent / "data" / "multinode" / "kserve_hf_multinode.yaml"
_STORAGE = "      storageUri: pvc://llama-3-8b-pvc/hf/8b_instruction_tuned\n"


def _report(tmp_path: Path, model_args: list[str]) -> dict[str, Any]:
    args = "      args:\n" + "".join(f"        - {a}\n" for a in model_args)
    manifest = tmp_path / "isvc.yaml"
    manifest.write_text(FIXTURE.read_text().replace(_STORAGE, _STORAGE + args))
    result = run_cli(["check", "--format", "json", "--no-resolve", str(manifest)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_table_is_generated_from_kserves_source() -> None:
    assert source() == (
        "kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912: python/kserve/kserve/model_server.py, "
        "python/huggingfaceserver/huggingfaceserver/__main__.py"
    )
    words = ["--model_name=m", "--backend", "vllm", "--tensor-parallel-size", "2", "--enable_grpc", "false"]
    split = split_kserve(words)
    assert split.engine == [3, 4]
    assert split.kserve == [
        ("--model_name", "model_name", [0]),
        ("--backend", "backend", [1, 2]),
        ("--enable_grpc", "enable_grpc", [5, 6]),
    ]


def test_kserve_options_in_the_model_args_are_not_vllm_flags(tmp_path: Path) -> None:
    report = _report(
        tmp_path, ["--model_id=meta-llama/Llama-3.1-8B-Instruct", "--backend=vllm", "--max_length=8192"]
    )
    # RS061 (vLLM 22nd batch): pipeline parallelism without Ray sends 0.8.5.post1-0.11.0 back to the V0
    # engine; a note, since nothing shows which release runs
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PR011", "info"), ("RS061", "info")]
    # --max_length (KServe's, dest max_model_len) sets what vLLM's engine args read
    assert report["parser"]["argv"] == [
        "--tensor-parallel-size=1",
        "--pipeline-parallel-size=2",
        "--max-model-len=8192",
    ]
    assert {s["name"]: s["effective"] for s in report["settings"]}["max_model_len"] == 8192
    assert report["parser"]["notes"][0].endswith("not vLLM flags: --model_name, --model_id, --backend")


def test_an_underscored_vllm_flag_is_dropped_by_parse_known_args(tmp_path: Path) -> None:
    report = _report(tmp_path, ["--gpu_memory_utilization=0.8"])
    judged = [(f["code"], f["severity"], f["setting"], f["message"], f["fix"]) for f in report["findings"]]
    # RS061 besides: pipeline parallelism without Ray, a note on the releases that fall back to V0
    assert [j[:2] for j in judged[2:]] == [("RS061", "info")]
    assert judged[1:2] == [
        (
            "PA001",
            "error",
            "gpu_memory_utilization",
            "--gpu_memory_utilization is not an option of huggingfaceserver's parser (KServe's options "
            "and vllm 0.33.0's, without their underscore-to-dash rewrite): it parses with parse_known_args, "
            "which drops the word without an error, so the value is lost; the flag is "
            "--gpu-memory-utilization",
            "write --gpu-memory-utilization",
        )
    ]
    # the server starts: argparse's parse_known_args does not exit
    assert (report["parser"]["exit_status"], report["parser"]["error"]) == (0, None)
