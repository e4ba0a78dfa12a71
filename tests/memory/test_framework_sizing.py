"""SGLang's own pool sizing, run in its resolver environments (``framework_sizing.py``, ``mem --resolver``).

Each case skips when the version's environment is missing; CI builds 0.5.10.post1 and 0.5.23. The logs are
the fixtures of ``test_accuracy.py`` (their first line names the source); the framework is fed the log's own
``avail mem`` figures. The expected values are what each version's code computes here, recorded once and
asserted exactly; the comparison with the log says which version reproduces it.

The tests stand in the order of the GPU they size for (RTX 4090 x2, H100, RTX PRO 6000, B200 x8): a GPU needs
a resolver host of its own per version where that version's import read what sets the GPU apart
(resolver/hosts.py: 0.5.23's reads the device name; 0.5.10.post1's nothing, so its RTX 4090 x2 and H100 share
a host, and its RTX PRO 6000 and B200 x8, of CUDA 12.9, another), and a worker keeps at most four hosts (the
least recently used is stopped). In this order no host is started twice: 7 hosts for the module's runs (9
when every GPU had its own, 13 in the order of the cases before).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.memory.config import load_config, read_model_spec
from argtrace.layers.memory.state import kv_geometry, mamba_geometry
from tests.conftest import REPO, run_cli
from tests.needs import unmet

MODELS = REPO / "tests" / "data" / "models"
LOGS = REPO / "tests" / "data" / "logs" / "memory"
GIB = 1 << 30

pytestmark = [pytest.mark.frameworks, pytest.mark.slow]


def sizing(version: str, model: str, gpu: str, pre_gb: float, post_gb: float, *flags: str) -> Any:
    if unmet([f"resolver:sglang=={version}"]):
        pytest.skip(f"no SGLang {version} resolver environment")
    return _sizing(version, model, gpu, pre_gb, post_gb, flags)


@functools.cache
def _sizing(version: str, model: str, gpu: str, pre_gb: float, post_gb: float, flags: tuple[str, ...]) -> Any:
    """One run per distinct launch (about ten seconds each): tests that read the same launch share it."""
    from argtrace.layers.memory.framework_sizing import run_framework_sizing

    got = run_framework_sizing(
        MODELS / model,
        list(flags),
        gpu,
        version,
        pre_load_bytes=int(pre_gb * GIB),
        post_load_bytes=int(post_gb * GIB),
    )
    assert got is not None
    return got


def functions(got: Any) -> set[str]:
    return {f["function"] for f in got.functions}


# Qwen3.5-9B TP2 on 2x RTX 4090 (tests/data/logs/memory/qwen3.5-9b-tp2-rtx4090.log, an SGLang dev build of
# April 2026): Load weight begin 22.93 GB, end 14.08 GB; the log allocates 327310 tokens, 186 Mamba slots and
# runs 62 requests (ratio 3).
NINE_B = ("qwen3.5-9b", "rtx-4090x2", 22.93, 14.08, "--tp-size", "2", "--mem-fraction-static", "0.8")
NINE_B_FLAGS = ("--context-length", "262144")


@pytest.mark.parametrize(
    ("version", "tokens", "slots", "requests", "ratio"),
    [
        # model_runner_kv_cache_mixin.py: slots = rest x 0.9/1.9 // per slot; ratio 3 with no_buffer
        ("0.5.10.post1", 328234, 187, 62, 3),
        # same pools; auto -> no_buffer keeps the overlap schedule off, but 0.5.15 counts 5 slots per request
        ("0.5.15.post1", 328234, 187, 37, 5),
        # kv_cache_configurator.py: the joint solve keeps the pool's padding slot and 0.10 GB for multimodal
        # feature transport (mm_runtime_reservation_gb); auto -> extra_buffer, ratio 5
        ("0.5.19", 324978, 184, 36, 5),
        ("0.5.23", 324978, 184, 36, 5),
    ],
)
def test_qwen35_9b_tp2_rtx4090_log(version: str, tokens: int, slots: int, requests: int, ratio: int) -> None:
    model, gpu, pre, post, *flags = NINE_B
    got = sizing(version, model, gpu, pre, post, *flags, *NINE_B_FLAGS)
    assert got.error is None, got.error
    assert (got.max_total_num_tokens, got.max_mamba_cache_size, got.max_running_requests) == (
        tokens,
        slots,
        requests,
    )
    assert got.mamba_ratio == ratio
    assert got.mem_fraction_static == 0.8
    # The dev build of the log: within 0.3 % of 0.5.10.post1's tokens and one slot of its Mamba cache, the
    # same 62 requests; 0.5.15 and later cap requests at slots // 5.
    assert abs(got.max_total_num_tokens - 327310) / 327310 < 0.01
    assert abs(got.max_mamba_cache_size - 186) <= 2
    assert (got.max_running_requests == 62) == (version == "0.5.10.post1")


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "0.5.10.post1",
            {
                "ModelRunnerKVCacheMixin._resolve_memory_pool_config",
                "ModelRunnerKVCacheMixin.profile_max_num_token",
                "ModelRunnerKVCacheMixin.handle_max_mamba_cache",
                "ModelRunnerKVCacheMixin.get_cell_size_per_token",
                "ModelRunnerKVCacheMixin._resolve_token_capacity",
                "ModelRunnerKVCacheMixin._resolve_max_num_reqs",
                "ModelRunnerKVCacheMixin._calculate_mamba_ratio",
                "ModelRunner.configure_kv_cache_dtype",
            },
        ),
        (
            "0.5.23",
            {
                "KVCacheConfigurator._resolve_memory_pool_config",
                "KVCacheConfigurator._profile_available_bytes",
                "KVCacheConfigurator._handle_max_mamba_cache",
                "KVCacheConfigurator.config_from_budget",
                "KVCacheConfigurator._apply_token_constraints",
                "KVCacheConfigurator.resolve_max_num_reqs",
                "KVCacheConfigurator._calculate_mamba_ratio",
                "ModelRunner.init_kv_cache_configurator",
            },
        ),
    ],
)
def test_the_functions_used_are_named_with_file_and_line(version: str, expected: set[str]) -> None:
    model, gpu, pre, post, *flags = NINE_B
    got = sizing(version, model, gpu, pre, post, *flags, *NINE_B_FLAGS)
    assert expected <= functions(got), sorted(functions(got))
    for f in got.functions:
        path, _, line = f["at"].rpartition(":")
        assert path.startswith("sglang/srt/") and line.isdigit(), f


def test_mem_resolver_makes_the_framework_numbers_primary() -> None:
    if unmet(["resolver:sglang==0.5.23"]):
        pytest.skip("no SGLang 0.5.23 resolver environment")
    model, gpu, _pre, _post, *flags = NINE_B
    result = run_cli(
        [
            "mem",
            "--format",
            "json",
            "--resolver",
            "--framework-version",
            "0.5.23",
            "--model-config",
            str(MODELS / model),
            "--gpu",
            gpu,
            "--from-log",
            str(LOGS / "qwen3.5-9b-tp2-rtx4090.log"),
            "--",
            *flags,
            *NINE_B_FLAGS,
        ]
    )
    assert result.status in (0, 1), result.stderr
    m = result.json["memory"]
    assert m["source"] == "sglang 0.5.23 (framework code, resolver environment)"
    assert (
        m["formulas"]
        == "argtrace formulas after sglang 0.5.10.post1 (no formulas of 0.5.23; these are 0.5.10.post1's)"
    )
    assert (m["max_total_num_tokens"], m["max_mamba_cache_size"], m["max_running_requests"]) == (
        324978,
        184,
        36,
    )
    assert m["mamba_slots_per_request"] == 5
    assert m["kv_pool_bytes"] == (324978 + 1) * 16384
    assert m["mamba_pool_bytes"] == (184 + 1) * (589824 + 25165824)
    static = m["static_prediction"]
    assert (
        static["max_total_num_tokens"],
        static["max_mamba_cache_size"],
        static["max_running_requests"],
    ) == (
        328234,
        187,
        62,
    )
    # The suggestions are sized by 0.5.23's own code too (one more run, every candidate a variant)
    assert m["suggested_source"] == m["source"]
    first = m["suggested"][0]
    assert first["flags"] == ["--mem-fraction-static", "0.92"]
    assert (first["max_total_num_tokens"], first["max_mamba_cache_size"], first["max_running_requests"]) == (
        420419,
        238,
        47,
    )
    messages = [f["message"] for f in result.json["findings"] if f["code"] == "MM009"]
    assert (
        "max_total_num_tokens: SGLang 0.5.23's own code gives 324978, "
        "argtrace's formulas (after 0.5.10.post1) 328234" in messages
    )
    assert (
        "max_running_requests: SGLang 0.5.23's own code gives 36, argtrace's formulas (after 0.5.10.post1) 62"
        in messages
    )


def test_mem_resolver_without_an_environment_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path))
    result = run_cli(
        [
            "mem",
            "--format",
            "json",
            "--resolver",
            "--model-config",
            str(MODELS / "qwen3.5-9b"),
            "--gpu",
            "rtx-4090x2",
            "--",
            "--tp-size",
            "2",
        ]
    )
    m = result.json["memory"]
    assert m["source"] == "argtrace formulas after sglang 0.5.10.post1"
    assert "framework_sizing" not in m
    assert (
        "--resolver: no SGLang 0.5.10.post1 resolver environment (argtrace resolver add sglang==0.5.10.post1)"
        in m["notes"]
    )


TWENTY_SEVEN_B = (
    "qwen3.6-27b-fp8",
    "h100",
    78.48,
    50.01,
    "--mem-fraction-static",
    "0.85",
    "--max-running-requests",
    "32",
)


# Qwen3.x-27B FP8 on one H100 (qwen3.6-27b-fp8-h100.log, SGLang 0.5.18): Load weight end 50.01 GB after
# 28.47 GB of weights (begin = 78.48 GB), --mem-fraction-static 0.85 --max-running-requests 32; the log
# allocates 330323 tokens and 124 Mamba slots.
@pytest.mark.parametrize(
    ("version", "tokens", "slots", "requests"),
    [
        ("0.5.10.post1", 330517, 126, 32),  # ratio 3: 126 // 3 = 42 >= 32
        ("0.5.15.post1", 330517, 126, 25),  # ratio 5: 126 // 5 = 25
        ("0.5.19", 328917, 125, 25),
        ("0.5.23", 328917, 125, 25),
    ],
)
def test_qwen36_27b_fp8_h100_log(version: str, tokens: int, slots: int, requests: int) -> None:
    got = sizing(version, *TWENTY_SEVEN_B)
    assert got.error is None, got.error
    assert (got.max_total_num_tokens, got.max_mamba_cache_size, got.max_running_requests) == (
        tokens,
        slots,
        requests,
    )
    # 0.5.18 lies between: no version here reproduces 330323 / 124 exactly (0.06 % and 0.4 % off, 1-2 slots).
    assert abs(got.max_total_num_tokens - 330323) / 330323 < 0.005
    assert 1 <= got.max_mamba_cache_size - 124 <= 2


@pytest.mark.parametrize("version", ["0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23"])
@pytest.mark.parametrize(("launch", "tp"), [((*NINE_B, *NINE_B_FLAGS), 2), (TWENTY_SEVEN_B, 1)])
def test_per_token_and_per_slot_bytes_equal_the_formulas(
    version: str, launch: tuple[Any, ...], tp: int
) -> None:
    model = launch[0]
    got = sizing(version, *launch)
    assert got.error is None, got.error
    spec = read_model_spec(load_config(MODELS / model))
    kv = kv_geometry(spec, tp)
    mamba = mamba_geometry(spec, tp)
    assert mamba is not None
    assert got.kv_bytes_per_token == kv.bytes_per_token
    assert got.kv_cache_dtype == "bfloat16"
    assert (got.mamba_conv_bytes_per_slot, got.mamba_ssm_bytes_per_slot) == (
        mamba.conv_bytes_per_slot,
        mamba.ssm_bytes_per_slot,
    )
    assert got.mamba_bytes_per_slot == mamba.bytes_per_slot
    assert got.full_attention_layer_ids == spec.full_attention_layer_ids


@pytest.mark.parametrize("version", ["0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23"])
def test_dense_llama_8b_h100(version: str) -> None:
    got = sizing(version, "llama-3.1-8b", "h100", 79.0, 64.0)
    assert got.error is None, got.error
    # 32 layers x 8 KV heads x (128 + 128) x bf16, as state.py computes it
    assert got.kv_bytes_per_token == 32 * 8 * 256 * 2 == 131072
    # (64 - 79 x (1 - 0.83)) GiB // 131072 B; requests: clamp(tokens / 131072 x 512, 2048, 4096)
    assert (got.max_total_num_tokens, got.max_running_requests, got.mem_fraction_static) == (
        414269,
        2048,
        0.83,
    )
    assert got.max_mamba_cache_size is None


# The seed: Qwen3.6-27B (bf16) with NEXTN and extra_buffer on one RTX PRO 6000, fed 94.40 GB before and
# 43.44 GB after the weights (argtrace's estimate for this launch, rounded as a log prints it).
SEED = ("qwen3.6-27b", "rtx-pro-6000", 94.40, 43.44, "--speculative-algorithm", "NEXTN")


def test_seed_sglang_0_5_10_post1_runs_out_of_memory() -> None:
    got = sizing("0.5.10.post1", *SEED, "--mamba-scheduler-strategy", "extra_buffer")
    assert got.error == (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. "
        "Current value: mem_fraction_static=0.7592325781249999"
    )
    assert got.error_at == "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:60"
    # NEXTN -> EAGLE with 48 running requests and 4 draft tokens, from SGLang's own resolution
    assert got.resolved["speculative_algorithm"] == "EAGLE"
    assert got.resolved["max_running_requests"] == 48
    assert got.resolved["speculative_num_draft_tokens"] == 4
    assert got.resolved["mamba_scheduler_strategy"] == "extra_buffer"


@pytest.mark.parametrize("version", ["0.5.15.post1", "0.5.19", "0.5.23"])
def test_seed_later_versions_fit_eight_requests(version: str) -> None:
    strategy = "--mamba-radix-cache-strategy" if version == "0.5.23" else "--mamba-scheduler-strategy"
    got = sizing(version, *SEED, strategy, "extra_buffer")
    assert got.error is None, got.error
    expected = {
        "0.5.15.post1": (220886, 44, 0.7980727343749999),
        "0.5.19": (209785, 40, 0.79344890625),
        "0.5.23": (209785, 40, 0.79344890625),
    }[version]
    assert (got.max_total_num_tokens, got.max_mamba_cache_size, got.mem_fraction_static) == expected
    assert got.max_running_requests == 8  # slots // 5 (extra_buffer with the overlap schedule)
    assert got.mamba_ratio == 5


def test_seed_sglang_0_5_23_refuses_the_old_strategy_flag() -> None:
    got = sizing("0.5.23", *SEED, "--mamba-scheduler-strategy", "extra_buffer")
    assert got.error == (
        "the 0.5.23 parser exits: sglang serve: error: unrecognized arguments: "
        "--mamba-scheduler-strategy extra_buffer"
    )


SEED_COMMAND = (
    "python3 -m sglang.launch_server --model-path /workspace/models/Qwen3.6-27B "
    "--speculative-algorithm NEXTN --mamba-radix-cache-strategy extra_buffer"
)


def test_check_sizes_another_release_with_its_own_code() -> None:
    """check --gpu on 0.5.23: the formulas (0.5.10.post1) say OOM; 0.5.23's own code fits 8 requests."""
    if unmet(["resolver:sglang==0.5.23"]):
        pytest.skip("no SGLang 0.5.23 resolver environment")
    argv = ["check", "--format", "json", "--framework-version", "0.5.23", "--model-config"]
    result = run_cli([*argv, str(MODELS / "qwen3.6-27b"), "--gpu", "rtx-pro-6000", "-c", SEED_COMMAND])
    memory = result.json["memory"]
    assert memory["source"] == "sglang 0.5.23 (framework code, resolver environment)"
    assert (memory["verdict"], memory["max_mamba_cache_size"], memory["max_running_requests"]) == (
        "fits",
        40,
        8,
    )
    assert memory["max_total_num_tokens"] == 209864
    assert memory["static_prediction"]["max_total_num_tokens"] is None  # the formulas' OOM, kept beside
    # It fits, so check does not pay another run to size alternatives: none, and where to get them.
    assert memory["suggested"] == []
    assert (
        "alternatives sized by SGLang 0.5.23's own code: argtrace mem --resolver --framework-version 0.5.23 "
        "--model-config ... --gpu rtx-pro-6000 -- FLAGS"
    ) in memory["notes"]
    codes = {(f["code"], f["severity"]) for f in result.json["findings"] if f["layer"] == "memory"}
    assert ("MM001", "error") not in codes and ("MM001", "warning") not in codes
    assert ("MM009", "warning") not in codes  # another release differing from the formulas: info
    [reserve] = [f["message"] for f in result.json["findings"] if f["code"] == "MM010"]
    # From 0.5.15.post1 the reserve covers the 8 requests the slots allow, not the 48 asked for.
    assert reserve.startswith(
        "speculative decoding reserves 4.59 GiB of intermediate Mamba states (8 running"
    )


def test_check_without_the_release_code_calls_its_oom_a_prediction() -> None:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.23", "--model-config"]
    result = run_cli([*argv, str(MODELS / "qwen3.6-27b"), "--gpu", "rtx-pro-6000", "-c", SEED_COMMAND])
    [oom] = [f for f in result.json["findings"] if f["code"] == "MM001"]
    assert oom["severity"] == "warning"
    assert oom["message"].endswith(
        "; argtrace's formulas follow SGLang 0.5.10.post1 and 0.5.23 sizes its pools with its own code: "
        "`argtrace resolver add sglang==0.5.23`, then `argtrace mem --resolver`, runs it"
    )
    assert result.json["memory"]["source"] == "argtrace formulas after sglang 0.5.10.post1"


@pytest.mark.parametrize(
    ("version", "tokens", "fraction"),
    [
        ("0.5.10.post1", 2059328, 0.844),
        ("0.5.15.post1", 2102592, 0.852),  # 0.5.15 reserves less for the B200 (mem_fraction_static)
        ("0.5.19", 2059328, 0.844),
        ("0.5.23", 2059328, 0.844),
    ],
)
def test_mla_deepseek_v3_fp8_kv_b200_tp8(version: str, tokens: int, fraction: float) -> None:
    got = sizing(
        version, "deepseek-v3", "b200x8", 177.0, 95.0, "--tp-size", "8", "--kv-cache-dtype", "fp8_e4m3"
    )
    assert got.error is None, got.error
    # MLA: (kv_lora_rank + qk_rope_head_dim) x 61 layers x 1 byte, not split by TP
    assert got.kv_bytes_per_token == (512 + 64) * 61 == 35136
    assert got.kv_cache_dtype == "float8_e4m3fn"
    # SGLang picks 64-token pages for MLA on a B200 (the formulas assume --page-size 1): tokens are aligned
    assert got.resolved["page_size"] == 64
    assert (got.max_total_num_tokens, got.mem_fraction_static) == (tokens, fraction)
    assert got.max_total_num_tokens % 64 == 0


def test_with_settings_replaces_flags_in_place() -> None:
    from argtrace.layers.memory.framework_sizing import with_settings

    argv = [
        "--model-path",
        "/m",
        "--mem-fraction-static",
        "0.8",
        "--max-running-requests=64",
        "--tp-size",
        "2",
    ]
    assert with_settings(
        argv, {"mem_fraction_static": 0.9, "max_running_requests": 24, "mamba_ssm_dtype": None}
    ) == [
        "--model-path",
        "/m",
        "--tp-size",
        "2",
        "--mem-fraction-static",
        "0.9",
        "--max-running-requests",
        "24",
    ]
