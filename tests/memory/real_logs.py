"""Public startup logs that print a launch's memory figures, and how `argtrace mem` is run on each.

Each case is what a user would type: the model's config.json (``tests/data/models``, public values), the GPU
the log names and the flags of the launch, after ``--``. ``logged`` holds the figures the log prints
(weights in GiB, KV tokens, vLLM's available KV cache in GiB); the log fixture under
``tests/data/logs/memory`` quotes the lines and names the URL. ``measure`` runs `argtrace mem` without the
log (the prediction a user gets before launching) and returns the predicted figures beside the logged ones.

``python3 -m tests.memory.real_logs`` prints the table docs/memory.md quotes.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from tests.conftest import REPO, run_cli

MODELS = REPO / "tests" / "data" / "models"
LOGS = REPO / "tests" / "data" / "logs" / "memory"
GIB = 1 << 30


@dataclass(frozen=True)
class Case:
    id: str
    url: str
    framework: str
    model: str
    gpu: str
    argv: tuple[str, ...]
    log: str
    logged: dict[str, float] = field(default_factory=dict)  # weights_gib, kv_tokens, kv_avail_gib
    note: str = ""
    failed: bool = False  # the log shows the launch failing at start-up
    version: str = ""  # the release the source names, given as --framework-version (as a user would)


CASES: tuple[Case, ...] = (
    Case(
        "vllm-13061",
        "https://github.com/vllm-project/vllm/issues/13061",
        "vllm",
        "deepseek-r1-distill-qwen-14b",
        "rtx-4090x2",
        (
            "vllm",
            "serve",
            "--trust-remote-code",
            "--tensor_parallel_size",
            "2",
            "--gpu_memory_utilization=0.98",
        ),
        "real/vllm-13061-r1-distill-qwen14b-tp2-4090.log",
        {"weights_gib": 13.9476, "kv_tokens": 81536, "kv_avail_gib": 8.69},
        "vLLM V0 (0.7): its profile run, not 0.33's, decided the KV memory (the issue quotes 8.69 GiB "
        "reserved for the KV cache, 0.25 GiB non-torch and a 0.19 GiB activation peak)",
        failed=True,
    ),
    Case(
        "vllm-10517",
        "https://github.com/vllm-project/vllm/issues/10517",
        "vllm",
        "llama-3.1-8b",
        "rtx-3090",
        ("vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "20000"),
        "real/vllm-10517-llama31-8b-3090-20k.log",
        {"weights_gib": 14.9888, "kv_tokens": 31232, "kv_avail_gib": 3.81},
        "RTX 3090 (23.58 GiB per the log; the rtx-3090 profile's 23.70 GiB rests on a torch OOM line); "
        "vLLM V0",
        version="0.6.4.post1",
    ),
    Case(
        "xinference-3481",
        "https://github.com/xorbitsai/inference/issues/3481",
        "sglang",
        "qwen3-14b",
        "l40s",
        ("--model-path", "Qwen/Qwen3-14B", "--mem-fraction-static", "0.88"),
        "real/sglang-xinference-3481-qwen3-14b.log",
        {"weights_gib": 27.57, "kv_tokens": 91749},
        "a 48 GB card (47.24 GB free before loading) sized as l40s (no 48 GB profile); 0.4.6's default 0.88",
    ),
    Case(
        "vllm-23278",
        "https://github.com/vllm-project/vllm/issues/23278",
        "vllm",
        "gpt-oss-120b",
        "h100",
        ("vllm", "serve", "openai/gpt-oss-120b"),
        "real/vllm-23278-gpt-oss-120b-h100.log",
        {"weights_gib": 65.9651, "kv_avail_gib": -2.14},
        "vLLM 0.10.1, Marlin MXFP4 kernel",
        failed=True,
        version="0.10.1",
    ),
    Case(
        "vllm-33155",
        "https://github.com/vllm-project/vllm/issues/33155",
        "vllm",
        "gpt-oss-120b",
        "h100",
        ("vllm", "serve", "openai/gpt-oss-120b"),
        "real/vllm-33155-gpt-oss-120b-h100.log",
        {"weights_gib": 64.38},
        "vLLM 0.14.1, Triton MXFP4 kernel",
        version="0.14.1",
    ),
    Case(
        "vllm-27508",
        "https://github.com/vllm-project/vllm/issues/27508",
        "vllm",
        "gpt-oss-120b",
        "h100",
        (
            "vllm",
            "serve",
            "openai/gpt-oss-120b",
            "--gpu-memory-utilization",
            "0.95",
            "--max-num-batched-tokens",
            "1024",
        ),
        "real/vllm-27508-gpt-oss-120b-h100-095.log",
        {"kv_avail_gib": 1.71},
        failed=True,
        version="0.11.0",
    ),
    Case(
        "myoceane-gpt-oss-20b",
        "https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/",
        "vllm",
        "gpt-oss-20b",
        "a100-80g",
        (
            "vllm",
            "serve",
            "openai/gpt-oss-20b",
            "--max-model-len",
            "131072",
            "--gpu-memory-utilization",
            "0.65",
        ),
        "real/vllm-myoceane-gpt-oss-20b-a100.log",
        {"weights_gib": 13.72, "kv_avail_gib": 36.56},
        "vLLM 0.19.0",
        version="0.19.0",
    ),
    Case(
        "vllm-21348",
        "https://github.com/vllm-project/vllm/issues/21348",
        "vllm",
        "qwen3-235b-a22b-fp8",
        "h100x4",
        (
            "vllm",
            "serve",
            "/path/to/Qwen3-235B-A22B-FP8",
            "--tensor-parallel-size",
            "4",
            "--kv-transfer-config",
            '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}',
        ),
        "qwen3-235b-a22b-fp8-tp4-h100.log",
        {"kv_tokens": 178880, "kv_avail_gib": 8.11},
    ),
    Case(
        "sglang-21348",
        "https://github.com/vllm-project/vllm/issues/21348",
        "sglang",
        "qwen3-235b-a22b-fp8",
        "h100x4",
        ("--model", "/path/to/Qwen3-235B-A22B-FP8", "--tp", "4", "--mem-fraction-static", "0.93"),
        "qwen3-235b-a22b-fp8-tp4-h100.log",
        {"kv_tokens": 367404},
    ),
    Case(
        "qwen3.5-9b-4090",
        "argtrace search index file id 53944457073 (public experiment note, SGLang dev build)",
        "sglang",
        "qwen3.5-9b",
        "rtx-4090x2",
        ("--tp-size", "2", "--mem-fraction-static", "0.8", "--context-length", "262144"),
        "qwen3.5-9b-tp2-rtx4090.log",
        {"weights_gib": 8.85, "kv_tokens": 327310},
    ),
    Case(
        "qwen3.6-27b-fp8-h100",
        "argtrace search index file id 65830671609 (public bring-up notes, SGLang 0.5.18)",
        "sglang",
        "qwen3.6-27b-fp8",
        "h100",
        ("--mem-fraction-static", "0.85", "--max-running-requests", "32"),
        "qwen3.6-27b-fp8-h100.log",
        {"weights_gib": 28.47, "kv_tokens": 330323},
    ),
    Case(
        "llama-3.1-8b-eagle3-docs",
        "https://github.com/sgl-project/sgl-project.github.io/ (docs CI, commit 7ec3b51c)",
        "sglang",
        "llama-3.1-8b",
        "h100",
        ("--max-total-tokens", "20480", "--dtype", "float16"),
        "llama-3.1-8b-eagle3-docs-ci.log",
        {"weights_gib": 15.11},
    ),
    Case(
        "llama-3.1-8b-lora-docs",
        "SGLang docs notebook, CI run 2026-05-23 (argtrace search index file id 56673501152)",
        "sglang",
        "llama-3.1-8b",
        "h100",
        ("--enable-lora", "--max-lora-rank", "256", "--max-total-tokens", "20480"),
        "llama-3.1-8b-lora.log",
        {"weights_gib": 15.76},
        "LoRA buffers (max rank 256) load with the weights and are not modelled",
    ),
    Case(
        "llama-2-7b-eagle-docs",
        "github.com/wxsms/sgl-project.github.io commit 004c16c5 (docs CI 2025-03-25)",
        "sglang",
        "llama-2-7b-chat",
        "h100",
        ("--max-total-tokens", "20480"),
        "llama-2-7b-eagle-docs-ci.log",
        {"weights_gib": 12.66},
    ),
    # --- 2026-12-02, second batch (memory8): profile run, TP/PP, GPT-OSS on an A100, gemma-3 ---
    Case(
        "vllm-10517-29k",
        "https://github.com/vllm-project/vllm/issues/10517",
        "vllm",
        "llama-3.1-8b",
        "rtx-3090",
        ("vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "29000"),
        "real/vllm-10517-llama31-8b-3090-29k.log",
        {"weights_gib": 14.9888, "kv_tokens": 23648, "kv_avail_gib": 2.89},
        "the same user at 29000: V0's start-up check failed (23648 tokens held)",
        failed=True,
        version="0.6.4.post1",
    ),
    Case(
        "vllm-gce-llama31-8b-a100-40g",
        "https://github.com/ilseokoh/vllm-gce",
        "vllm",
        "llama-3.1-8b",
        "a100-40g",
        (
            "vllm",
            "serve",
            "/models/Meta-Llama-3.1-8B-Instruct",
            "--enforce-eager",
            "--max-num-batched-tokens",
            "8192",
        ),
        "real/vllm-gce-llama31-8b-a100-40g.log",
        {"weights_gib": 14.99, "kv_avail_gib": 19.28, "kv_tokens": 157936},
        "vLLM 0.15.1 through the LLM class (max_num_batched_tokens 8192 as its log prints; max_num_seqs not "
        "printed: the server's 256 assumed)",
        version="0.15.1",
    ),
    Case(
        "a100-40g-gpt-oss-20b",
        "argtrace search index file id 53067131107 (public script notes, vLLM on an A100-SXM4-40GB)",
        "vllm",
        "gpt-oss-20b",
        "a100-40g",
        (
            "vllm",
            "serve",
            "openai/gpt-oss-20b",
            "--max-model-len",
            "8192",
            "--gpu-memory-utilization",
            "0.95",
        ),
        "real/vllm-a100-40g-weights.log",
        {"weights_gib": 13.72},
        "MXFP4 below SM90: the Marlin kernel's padding",
    ),
    Case(
        "a100-40g-r1-distill-qwen-14b",
        "argtrace search index file id 53067131107 (public script notes, vLLM on an A100-SXM4-40GB)",
        "vllm",
        "deepseek-r1-distill-qwen-14b",
        "a100-40g",
        (
            "vllm",
            "serve",
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
            "--max-model-len",
            "8192",
            "--gpu-memory-utilization",
            "0.95",
        ),
        "real/vllm-a100-40g-weights.log",
        {"weights_gib": 27.59},
    ),
    Case(
        "vllm-48601-qwen3.6-27b-fp8-tp4",
        "https://github.com/vllm-project/vllm/pull/48601",
        "vllm",
        "qwen3.6-27b-fp8",
        "h100x4",
        (
            "vllm",
            "serve",
            "Qwen/Qwen3.6-27B-FP8",
            "-tp",
            "4",
            "--gpu-memory-utilization",
            "0.92",
        ),
        "real/vllm-48601-qwen3.6-27b-fp8-tp4-h100.log",
        {"weights_gib": 7.39, "kv_avail_gib": 63.25},
        "vLLM's V2 model runner (a 2026 build, default utilization 0.92, given here); the log's H100 reports "
        "79.11 GiB total where the h100 profile holds 79.19; that build subtracts CUDA graphs after the KV "
        "cache (its 63.25 GiB is 72.78 - 7.39 - 1.54 - 0.6)",
        failed=True,
    ),
    Case(
        "blog-qwen3-32b-tp2",
        "argtrace search index file id 57905766703 (public blog post, vllm/vllm-openai:latest)",
        "vllm",
        "qwen3-32b",
        "rtx-pro-6000x2",
        (
            "vllm",
            "serve",
            "Qwen/Qwen3-32B",
            "--tensor-parallel-size",
            "2",
            "--gpu-memory-utilization",
            "0.426",
            "--max-model-len",
            "32768",
        ),
        "real/vllm-blog-qwen3-32b-tp2-pp2.log",
        {"weights_gib": 30.59, "kv_avail_gib": 8.22, "kv_tokens": 67296},
        "two 96 GB Blackwell cards held to a 40.47 GiB budget",
    ),
    Case(
        "blog-qwen3-32b-pp2",
        "argtrace search index file id 57905766703 (public blog post, vllm/vllm-openai:latest)",
        "vllm",
        "qwen3-32b",
        "rtx-pro-6000x2",
        (
            "vllm",
            "serve",
            "Qwen/Qwen3-32B",
            "--pipeline-parallel-size",
            "2",
            "--gpu-memory-utilization",
            "0.426",
            "--max-model-len",
            "32768",
        ),
        "real/vllm-blog-qwen3-32b-tp2-pp2.log",
        {"weights_gib": 30.52, "kv_avail_gib": 6.92, "kv_tokens": 56640},
        "the log's figures are stage 0's (PP0); argtrace reports the worst stage",
    ),
    Case(
        "blog-l40s-qwen3-14b",
        "argtrace search index file id 60168338778 (public blog post, vLLM 0.28.0 on an AWS g6e.2xlarge)",
        "vllm",
        "qwen3-14b",
        "l40s",
        ("vllm", "serve", "Qwen/Qwen3-14B", "--disable-log-stats"),
        "real/vllm-l40s-qwen3-14b-blog-and-book.log",
        {"weights_gib": 27.52, "kv_avail_gib": 11.57, "kv_tokens": 75824},
        "vLLM 0.28.0, defaults",
        version="0.28.0",
    ),
    Case(
        "book-l40s-qwen3-14b",
        "argtrace search index file id 60511576041 (public study note quoting O'Reilly's Hands-On LLM "
        "Serving and Optimization, ch. 9)",
        "vllm",
        "qwen3-14b",
        "l40s",
        ("vllm", "serve", "Qwen/Qwen3-14B"),
        "real/vllm-l40s-qwen3-14b-blog-and-book.log",
        {"weights_gib": 27.5185, "kv_avail_gib": 11.00, "kv_tokens": 72064},
        "the book's run on the same instance type; its vLLM release is not stated",
    ),
    Case(
        "optimization-lab-l40s-qwen3-14b",
        "https://github.com/samilazrak/vllm-optimization-lab",
        "vllm",
        "qwen3-14b",
        "l40s",
        ("vllm", "serve", "Qwen/Qwen3-14B"),
        "real/vllm-l40s-qwen3-14b-optimization-lab.log",
        {"weights_gib": 27.52, "kv_avail_gib": 11.06, "kv_tokens": 72496},
        "vLLM 0.29.0, defaults",
        version="0.29.0",
    ),
    # --- 2026-12-02, third batch (memory9): named releases, their own profile runs ---
    Case(
        "dennislee22-gpt-oss-120b-tp4-a100",
        "https://github.com/dennislee22/vLLM-benchmarking",
        "vllm",
        "gpt-oss-120b",
        "a100-80gx4",
        (
            "vllm",
            "serve",
            "gpt-oss-120b",
            "--max-model-len",
            "16384",
            "--tensor-parallel-size",
            "4",
            "--gpu-memory-utilization",
            "0.8",
        ),
        "real/vllm-dennislee22-gpt-oss-120b-tp4-a100.log",
        {"weights_gib": 17.2217, "kv_avail_gib": 45.32, "kv_tokens": 2640144},
        "vLLM 0.10.1.1 (its version line), Marlin MXFP4 on the A100; FlashInfer's sampler was installed "
        "(its log line), where argtrace assumes PyTorch's",
        version="0.10.1.1",
    ),
    Case(
        "offload-profiles-llama31-8b-3090-090",
        "https://github.com/TheBuccaneer/vllm-offload-profiles",
        "vllm",
        "llama-3.1-8b",
        "rtx-3090",
        ("vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"),
        "real/vllm-0171-llama31-8b-3090-util-sweep.log",
        {"weights_gib": 14.99, "kv_avail_gib": 5.68, "kv_tokens": 46544},
        "vLLM 0.17.1 (the study's README and the log's line numbers), defaults",
        version="0.17.1",
    ),
    Case(
        "offload-profiles-llama31-8b-3090-075",
        "https://github.com/TheBuccaneer/vllm-offload-profiles",
        "vllm",
        "llama-3.1-8b",
        "rtx-3090",
        (
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--max-model-len",
            "8192",
            "--gpu-memory-utilization",
            "0.75",
        ),
        "real/vllm-0171-llama31-8b-3090-util-sweep.log",
        {"weights_gib": 14.99, "kv_avail_gib": 2.13, "kv_tokens": 17424},
        "the same study at 0.75",
        version="0.17.1",
    ),
    Case(
        "offload-profiles-llama31-8b-3090-070",
        "https://github.com/TheBuccaneer/vllm-offload-profiles",
        "vllm",
        "llama-3.1-8b",
        "rtx-3090",
        (
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--max-model-len",
            "8192",
            "--gpu-memory-utilization",
            "0.7",
        ),
        "real/vllm-0171-llama31-8b-3090-util-sweep.log",
        {"weights_gib": 14.99, "kv_avail_gib": 0.95},
        "the same study at 0.70: 1.0 GiB needed for 8192 tokens, 0.95 available",
        failed=True,
        version="0.17.1",
    ),
    Case(
        "kuiperinfer-qwen3-14b-tp4-4090",
        "argtrace search index file id 55529353766 (public project notes, SGLang from source, 2026-06)",
        "sglang",
        "qwen3-14b",
        "rtx-4090x4",
        ("--model-path", "/models/Qwen3-14B", "--tp-size", "4", "--mem-fraction-static", "0.80"),
        "qwen3-14b-tp4-rtx4090-sglang.log",
        {"weights_gib": 7.08, "kv_tokens": 298447},
        "SGLang built from source at commit ebaf86d4 (no release named: sized with 0.5.10.post1's formulas)",
    ),
    Case(
        "sglang-docs-llama31-8b-h100-2025-01",
        "https://docs.sglang.ai/start/send_request.html (clipped 2025-01-23, argtrace search index file id "
        "18084549501)",
        "sglang",
        "llama-3.1-8b",
        "h100",
        ("--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--mem-fraction-static", "0.88"),
        "llama-3.1-8b-sglang-docs-2025-01-h100.log",
        {"weights_gib": 15.09, "kv_tokens": 444500},
        "SGLang of January 2025: its default mem_fraction_static 0.88 (the server_args line) given, as for "
        "xinference#3481; weights from the free memory before and after loading (78.81 - 63.72)",
    ),
)


def report_json(case: Case, *, from_log: bool = False) -> dict[str, Any]:
    argv = ["mem", "--format", "json", "--model-config", str(MODELS / case.model), "--gpu", case.gpu]
    if case.argv[0].startswith("-"):  # only flags: say which framework; a whole command names its own
        argv += ["--framework", case.framework]
    if case.version:
        argv += ["--framework-version", case.version]
    if from_log:
        argv += ["--from-log", str(LOGS / case.log)]
    result = run_cli([*argv, "--", *case.argv])
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def mem_json(case: Case, *, from_log: bool = False) -> dict[str, Any]:
    return dict(report_json(case, from_log=from_log)["memory"])


def verdict(case: Case) -> str:
    """``fits``, or ``oom (error)`` / ``oom (warning, assumed)`` with MM001's severity and basis."""
    report = report_json(case)
    if report["memory"]["verdict"] != "oom":
        return str(report["memory"]["verdict"])
    (mm001,) = [f for f in report["findings"] if f["code"] == "MM001"]
    return f"oom ({mm001['severity']}, {mm001['basis']})"


def verdict_is_right(case: Case, said: str) -> bool:
    """A failed launch must be called out of memory; one that started must not be an error (a warning resting
    on an assumption is not a claim that it fails)."""
    return said.startswith("oom") if case.failed else not said.startswith("oom (error")


def measure(case: Case) -> dict[str, tuple[float, float]]:
    """{figure: (predicted, logged)} for each figure the log prints."""
    m = mem_json(case)
    out: dict[str, tuple[float, float]] = {}
    for key, logged in case.logged.items():
        if key == "weights_gib":
            out[key] = (m["weights_bytes"] / GIB, logged)
        elif key == "kv_tokens":
            tokens = m["max_total_num_tokens"]
            if tokens is None and m.get("vllm"):  # vLLM's start-up check failed: the blocks it would hold
                tokens = m["vllm"]["num_blocks"] * m["vllm"]["block_size"]
            out[key] = (float(tokens or 0), logged)
        elif key == "kv_avail_gib":
            out[key] = (float(m.get("available_kv_cache_bytes") or 0) / GIB, logged)
    return out


def relative_error(predicted: float, logged: float) -> float:
    return (predicted - logged) / abs(logged) if logged else predicted


def table() -> str:
    rows = [
        "| case | framework | GPU | figure | predicted | logged | error |",
        "|---|---|---|---|---|---|---|",
    ]
    errors: dict[str, list[float]] = {}
    gib_errors: list[float] = []
    for case in CASES:
        for key, (predicted, logged) in measure(case).items():
            err = relative_error(predicted, logged)
            # available KV memory can be near zero or negative: its error is in GiB, not relative
            if key == "kv_avail_gib":
                shown = f"{predicted - logged:+.2f} GiB"
                gib_errors.append(abs(predicted - logged))
            else:
                shown = f"{err:+.1%}"
                errors.setdefault(key, []).append(abs(err))
            fmt = "{:.2f}" if key != "kv_tokens" else "{:,.0f}"
            rows.append(
                f"| {case.id} | {case.framework} | {case.gpu} | {key} | {fmt.format(predicted)} | "
                f"{fmt.format(logged)} | {shown} |"
            )
    rows.append("\n| case | failed at start-up | argtrace says | right |\n|---|---|---|---|")
    wrong = 0
    for case in CASES:
        said = verdict(case)
        right = verdict_is_right(case, said)
        wrong += not right
        rows.append(f"| {case.id} | {'yes' if case.failed else 'no'} | {said} | {'yes' if right else 'NO'} |")
    rows.append(f"\nwrong verdicts: {wrong} of {len(CASES)}")
    for key, values in errors.items():
        rows.append(
            f"\n{key}: {len(values)} logs, median |error| {statistics.median(values):.1%}, "
            f"worst {max(values):.1%}"
        )
    rows.append(
        f"\nkv_avail_gib: {len(gib_errors)} logs, median |error| {statistics.median(gib_errors):.2f} GiB, "
        f"worst {max(gib_errors):.2f} GiB, within 1 GiB {sum(e <= 1.0 for e in gib_errors)}"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
