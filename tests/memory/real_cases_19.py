"""The memory batch of session 19 (docs/real_cases.md, "Memory at start-up, 2nd"): 15 public reports of
2025-2026 where a vLLM or SGLang launch ran out of memory or was refused for memory at start-up, and 5 correct
launches, each in ``tests/data/memory_19/`` with its URL, release, GPU and the log's own figures in a header.

Each case is what a new user runs: ``argtrace mem`` with the model's config.json (``tests/data/models``,
rebuilt from the report or the model card, nothing downloaded) and the GPU the report names, on the launch as
posted (``$ `` line); ``argtrace why`` on the quoted error; ``argtrace log`` on a quoted log. ``logged`` holds
the figures the report prints (weights GiB, KV tokens, available KV GiB); ``predicted`` reads argtrace's.

``python3 -m tests.memory.real_cases_19`` prints the table docs/real_cases.md quotes.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "memory_19"
MODELS = REPO / "tests" / "data" / "models"
GIB = 1 << 30


@dataclass(frozen=True)
class Case:
    id: str
    file: str
    model: str = ""  # a directory of tests/data/models, or "" when the report's model has no shipped config
    gpu: str = ""  # the GPU the report names ("" when it names none or argtrace has no profile for it)
    options: tuple[str, ...] = ()  # --framework-version / --env as the report names them
    logged: dict[str, float] = field(default_factory=dict)  # weights_gib, kv_tokens, kv_avail_gib
    failed: bool = True  # the report shows the launch failing at start-up


CASES: tuple[Case, ...] = (
    Case("vllm#25350", "vllm25350_fp8_kv_221000.txt"),
    Case("vllm#26612", "vllm26612_qwen3vl_30b_a3b_a800.log", logged={"kv_avail_gib": 13.69}),
    Case("vllm#42147", "vllm42147_qwen36_awq_kv_alloc.txt"),
    Case(
        "vllm#16199",
        "vllm16199_gemma3_27b_awq_a10.txt",
        "gemma-3-27b-it-int4-awq",
        "a10",
        ("--framework-version", "0.8.3"),
        {"weights_gib": 17.6110, "kv_tokens": 3584},
    ),
    Case(
        "vllm#16128",
        "vllm16128_mistral31_24b_awq_base_config.txt",
        "mistral-small-3.1-24b-instruct",
        "a10",
        ("--framework-version", "0.8.3"),
    ),
    Case(
        "vllm#18156",
        "vllm18156_qwen3_235b_awq_4xa10.txt",
        "qwen3-235b-a22b-awq",
        "a10x4",
        ("--framework-version", "0.8.5.post1"),
    ),
    Case("sglang#2763", "sglang2763_deepseek_v25_dp_attention.txt", "deepseek-v2.5", "h100x8"),
    Case("sglang#36583", "sglang36583_eagle_tp4_1741_tokens.txt"),
    Case("vllm#28228", "vllm28228_kimi_linear_awq_2x3090.txt", "", "rtx-3090x2"),
    Case(
        "DeepSeek-V3#205",
        "deepseekv3_205_32x4090_tp8_pp4.txt",
        "deepseek-v3",
        "rtx-4090x32",
        ("--framework-version", "0.6.6"),
        {"weights_gib": 16.9583},
    ),
    Case("vllm#20726", "vllm20726_qwen25_7b_5060ti.txt"),
    Case("sglang#23769", "sglang23769_dsv4_pro_graph_oom.txt", "", "h200x16"),
    Case("vllm#14726", "vllm14726_deepseek_v3_16xl40.txt"),
    Case(
        "kvcached#210",
        "kvcached210_llama70b_8xa100_40g.txt",
        "",
        "a100-40gx8",
        ("--framework-version", "0.11.0"),
    ),
    Case(
        "WeClone#83",
        "weclone83_qwen25_7b_3090.txt",
        "qwen2.5-7b-instruct",
        "rtx-3090",
        logged={"weights_gib": 14.2487},
    ),
    # correct launches
    Case(
        "club-3090#104 (0.88)",
        "ok_club3090_104_qwen36_27b_autoround_2x3090_088.txt",
        "qwen3.6-27b-autoround-int4",
        "rtx-3090x2",
        logged={"kv_tokens": 619202, "kv_avail_gib": 9.84},
        failed=False,
    ),
    Case(
        "club-3090#104 (0.92)",
        "ok_club3090_104_qwen36_27b_autoround_2x3090_092.txt",
        "qwen3.6-27b-autoround-int4",
        "rtx-3090x2",
        logged={"kv_avail_gib": 11.06},
        failed=False,
    ),
    Case(
        "club-3090#294",
        "ok_club3090_294_qwen36_27b_autoround_2x3090.txt",
        "qwen3.6-27b-autoround-int4",
        "rtx-3090x2",
        logged={"kv_tokens": 622408},
        failed=False,
    ),
    Case(
        "club-3090 PR#44",
        "ok_club3090_pr44_qwen36_27b_autoround_4x3090.txt",
        "qwen3.6-27b-autoround-int4",
        "rtx-3090x4",
        failed=False,
    ),
    Case("vllm#25350 (100000)", "ok_vllm25350_fp8_kv_100000.txt", failed=False),
)


def lines(case: Case) -> list[str]:
    return (DATA / case.file).read_text(encoding="utf-8").splitlines()


def command(case: Case) -> list[str] | None:
    found = [x[2:] for x in lines(case) if x.startswith("$ ")]
    return shlex.split(found[0]) if found else None


def quoted(case: Case) -> str:
    return "\n".join(x for x in lines(case) if not x.startswith(("#", "$ ")))


def mem(case: Case, *extra: str) -> tuple[int, dict[str, Any]]:
    """`argtrace mem` on the launch as posted, with the report's model config and GPU."""
    argv = command(case)
    assert argv is not None and case.model, case.id
    result = run_cli(
        [
            "mem",
            "--format",
            "json",
            "--model-config",
            str(MODELS / case.model),
            *(("--gpu", case.gpu) if case.gpu else ()),
            *case.options,
            *extra,
            "--",
            *argv,
        ]
    )
    return result.status, json.loads(result.stdout)


def predicted(report: dict[str, Any]) -> dict[str, float]:
    """argtrace's figures for the keys the logs print (rank 0, or the stage a log's rank 0 belongs to)."""
    m = report["memory"]
    stages = (m.get("pipeline") or {}).get("stages") or []
    weights = stages[0]["weights_bytes"] if stages else m.get("weights_bytes")
    out: dict[str, float] = {}
    if weights:
        out["weights_gib"] = round(weights / GIB, 4)
    tokens = m.get("max_total_num_tokens")
    if tokens and m.get("verdict") != "oom":
        out["kv_tokens"] = tokens
    avail = m.get("available_kv_cache_bytes")
    if avail is not None:
        out["kv_avail_gib"] = round(avail / GIB, 2)
    return out


def errors(case: Case, report: dict[str, Any]) -> dict[str, float]:
    """Relative error of each predicted figure against the logged one."""
    got = predicted(report)
    return {k: (got[k] - v) / v for k, v in case.logged.items() if k in got}


def table() -> str:
    rows = ["| case | logged | predicted | relative error |", "|---|---|---|---|"]
    for case in CASES:
        if not (case.model and command(case)):
            continue
        _status, report = mem(case)
        got = predicted(report)
        codes = ", ".join(f"{f['code']} {f['severity']}" for f in report["findings"])
        err = errors(case, report)
        rows.append(
            f"| {case.id} | {case.logged} | {got} (verdict {report['memory'].get('verdict')}; {codes}) | "
            + ", ".join(f"{k} {v:+.1%}" for k, v in err.items())
            + " |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
