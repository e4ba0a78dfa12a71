"""The vLLM batch of session 22 (docs/real_cases.md, "vLLM, 22nd session"), measured before any fix: chunked
prefill turned off on releases whose V1 engine turns it back on, pipeline parallelism without the Ray
executor on 0.8.x's V1 oracle, --override-generation-config keys a release drops, --limit-mm-per-prompt
key=value per release, --compilation-config given a level word, fp8 KV caches and FlashAttention 3 on 0.7.0,
GGUF checkpoints with -O3 or --cpu-offload-gb, CPU offloading on 0.25.1, a PD prefill server's data-parallel
size. Each case under ``tests/data/real_cases_vllm22/`` names its URL on its first line (``.cmd`` launches
for ``argtrace check -c``, ``.txt`` the text a report quotes for ``argtrace why``, ``ok_*`` the correct
launches collected with them). The machine is a new user's (no resolver environment, no Hugging Face
cache)."""

from __future__ import annotations

import copy
import functools
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm22"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 45424715) and now.
CLASSES = {
    "pr21645_no_chunked_prefill.cmd": ("c", "b"),
    "pr19975_no_chunked_prefill_091.cmd": ("c", "a"),
    "vllm15060_chunked_prefill_embedding_070.cmd": ("c", "c"),
    "pr16057_pp2_default_mp.cmd": ("c", "b"),
    "vllm20752_pp2_tp16_v0_fallback.cmd": ("c", "b"),
    "vllm20752_pp_without_ray.txt": ("b", "a"),
    "vllm50767_override_presence_penalty.cmd": ("c", "b"),
    "vllm21615_limit_mm_key_value_0100.cmd": ("a", "a"),
    "recipes446_gemma4_limit_mm_key_value.cmd": ("b", "b"),
    "autotuning76_compilation_config_O1.cmd": ("b", "a"),
    "vllm13329_gguf_compilation_O3.cmd": ("c", "c"),
    "vllm12543_fa3_fp8_kv_cache.cmd": ("c", "c"),
    "vllm14096_gguf_cpu_offload.cmd": ("c", "c"),
    "llmkube1320_cpu_offload_0251.cmd": ("c", "c"),
    "vllmascend8344_kv_transfer_dp_conflict.txt": ("c", "c"),
}
CORRECT = [
    "ok_docs055_pp_ray.cmd",
    "ok_pr12409_override_generation_config.cmd",
    "ok_pr22772_structured_outputs_backend.cmd",
    "ok_recipes446_limit_mm_dotted.cmd",
    "ok_recipes446_limit_mm_json.cmd",
]
# the release a report names (its text, a log line, the maintainer's reply), given as --framework-version
RELEASES = {
    "pr19975_no_chunked_prefill_091.cmd": "0.9.1",
    "vllm15060_chunked_prefill_embedding_070.cmd": "0.7.0",
    "vllm20752_pp2_tp16_v0_fallback.cmd": "0.8.5.post1",
    "vllm20752_pp_without_ray.txt": "0.8.5.post1",
    "vllm21615_limit_mm_key_value_0100.cmd": "0.10.0",
    "vllm13329_gguf_compilation_O3.cmd": "0.7.0",
    "vllm12543_fa3_fp8_kv_cache.cmd": "0.7.0",
    "llmkube1320_cpu_offload_0251.cmd": "0.25.1",
    "vllmascend8344_kv_transfer_dp_conflict.txt": "0.18.0",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "pr21645_no_chunked_prefill.cmd": (
        "enable_chunked_prefill",
        "nothing names the release (main after 0.10.0): RS060 is a note naming 0.8.5.post1-0.11.0",
    ),
    "vllm15060_chunked_prefill_embedding_070.cmd": (
        "chunked",
        "0.7.0's handling of --enable-chunked-prefill with --task embedding is not read (0.7.3 raises for "
        "pooling models; the report says the setting had no effect)",
    ),
    "pr16057_pp2_default_mp.cmd": (
        "Pipeline Parallelism",
        "the report's build (main before 0.8.3) is not named: RS061 is a note naming 0.8.5.post1",
    ),
    "vllm20752_pp2_tp16_v0_fallback.cmd": (
        "Pipeline Parallelism",
        "V0 serves the launch after the V1 oracle's fallback: RS061 is a note; the hang on the Ray cluster "
        "is not read",
    ),
    "vllm50767_override_presence_penalty.cmd": (
        "presence_penalty",
        "nothing names the release: RS059 is a note naming 0.7.3-0.30.0 (0.33.0 keeps the key)",
    ),
    "recipes446_gemma4_limit_mm_key_value.cmd": (
        "--limit-mm-per-prompt",
        "nothing names the release; Gemma 4 (which only releases that refuse key=value serve) is known from "
        "its config.json, not from the command",
    ),
    "vllm13329_gguf_compilation_O3.cmd": (
        "gguf",
        "torch.compile with a GGUF checkpoint on 0.7.0 is not read",
    ),
    "vllm12543_fa3_fp8_kv_cache.cmd": (
        "FLASH_ATTN",
        "0.7.x's V0 backend selector turns an fp8 KV cache away from FlashAttention whatever "
        "VLLM_FLASH_ATTN_VERSION says: not read",
    ),
    "vllm14096_gguf_cpu_offload.cmd": ("cpu-offload", "CPU offloading of GGUF weights is not read"),
    "llmkube1320_cpu_offload_0251.cmd": (
        "cpu-offload",
        "0.25.1's model runner ignoring --cpu-offload-gb is not read (as vllm#51396, the 21st batch)",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def first_site(name: str) -> dict[str, Any]:
    return copy.deepcopy(_why(name)["matches"][0])


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 3, 11, 0], [4, 5, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and n.endswith(".cmd")}
    assert set(MISSING) == checked


def test_pr19975_chunked_prefill_turned_back_on() -> None:
    """c -> a: 0.9.1 is read as 0.9.2, whose EngineArgs._set_default_args_v1 sets enable_chunked_prefill =
    True for every model that is not a pooling model (read from the wheel): a warning, the model is not."""
    report = check("pr19975_no_chunked_prefill_091.cmd")
    assert shown_codes(report) == [("RS060", "warning")]
    lost = finding(report, "RS060")
    assert lost["message"] == (
        "--no-enable-chunked-prefill is lost: vllm 0.9.2 sets enable_chunked_prefill back to True for the V1 "
        "engine (EngineArgs._set_default_args_v1, vllm/engine/arg_utils.py:1579) when "
        "model_config.runner_type != 'pooling'"
    )
    assert lost["fix"] == (
        "run vLLM 0.11.2 or later, which keeps the value given; or drop the flag; VLLM_USE_V1=0 (the V0 "
        "engine) keeps it on this release"
    )
    assert finding(check("pr21645_no_chunked_prefill.cmd"), "RS060")["message"] == (
        "--no-enable-chunked-prefill: vllm 0.8.5.post1-0.11.0 set enable_chunked_prefill back to True "
        "(EngineArgs._set_default_args, vllm/engine/arg_utils.py:1548 in 0.11.0); vllm 0.33.0 keeps it, and "
        "nothing shows which release runs"
    )


@pytest.mark.parametrize(
    ("launch", "version", "expected"),
    [
        ("vllm serve /m --no-enable-chunked-prefill", "0.8.5.post1", [("RS060", "error")]),  # unconditional
        ("VLLM_USE_V1=0 vllm serve /m --no-enable-chunked-prefill", "0.8.5.post1", []),  # V0 keeps it
        ("vllm serve /m --no-enable-chunked-prefill", "0.11.2", []),
        ("vllm serve /m --enable-chunked-prefill False", "0.7.3", []),  # V0 is 0.7.3's default engine
        ("VLLM_USE_V1=1 vllm serve /m --enable-chunked-prefill False", "0.7.3", [("RS060", "error")]),
        ("VLLM_USE_V1=1 vllm serve /m --enable-chunked-prefill True", "0.7.3", []),  # kept as given
    ],
)
def test_rs060_variants(launch: str, version: str, expected: list[tuple[str, str]]) -> None:
    assert shown_codes(command("--framework-version", version, "-c", launch)) == expected


def test_vllm50767_override_keys_the_release_drops() -> None:
    """c -> b: get_diff_sampling_param keeps presence_penalty and frequency_penalty from 0.31.0; with no
    release named (0.33.0 analysed) a note names the releases that drop them."""
    note = finding(check("vllm50767_override_presence_penalty.cmd"), "RS059")
    assert note["severity"] == "info"
    assert note["message"].startswith(
        "--override-generation-config: vllm 0.7.3-0.30.0 drop 'presence_penalty', 'frequency_penalty'"
    )


def test_rs059_variants() -> None:
    value = '{"temperature": 0.7, "presence_penalty": 1.5}'
    report = command(
        "--framework-version", "0.30.0", "-c", f"vllm serve /m --override-generation-config '{value}'"
    )
    assert shown_codes(report) == [("RS059", "error")]
    assert finding(report, "RS059")["fix"] == (
        "set presence_penalty per request instead (the server does not default it), or run vLLM 0.31.0 or "
        "later, which keeps it"
    )
    kept = command(
        "--framework-version", "0.31.0", "-c", f"vllm serve /m --override-generation-config '{value}'"
    )
    assert shown_codes(kept) == []
    # eos_token_id is in no release's list
    eos = command(
        "--framework-version",
        "0.33.0",
        "-c",
        "vllm serve /m --override-generation-config '{\"eos_token_id\": [1, 106]}'",
    )
    assert shown_codes(eos) == [("RS059", "error")]
    assert "'eos_token_id' is dropped without a word" in finding(eos, "RS059")["message"]
    # a name the list spells otherwise: HF's max_new_tokens, not the request's max_tokens
    spelt = command(
        "--framework-version", "0.33.0", "-c", "vllm serve /m --override-generation-config.max_tokens 64"
    )
    assert (
        finding(spelt, "RS059")["fix"]
        == "write max_new_tokens (the generation config's name), not max_tokens"
    )


def test_vllm20752_pipeline_parallelism_without_ray() -> None:
    """check c -> b (a note: V0 serves the launch); why b -> a: the V1 oracle's test names the settings."""
    note = finding(check("vllm20752_pp2_tp16_v0_fallback.cmd"), "RS061")
    assert note["severity"] == "info"
    assert note["message"] == (
        "Pipeline Parallelism without Ray distributed executor: vllm 0.8.5.post1 does not run the V1 engine "
        "for this launch but falls back to V0 (EngineArgs._is_v1_supported_oracle, "
        "vllm/engine/arg_utils.py:1481) because self.pipeline_parallel_size > 1 and "
        "self.distributed_executor_backend != 'ray'"
    )
    first = first_site("vllm20752_pp_without_ray.txt")
    assert first["function"] == "_raise_or_fallback"
    assert [s["flag"] for s in first["settings"]] == [
        "--distributed-executor-backend",
        "--pipeline-parallel-size",
    ]
    assert first["fix"].startswith(
        "vllm 0.8.5.post1 sends the launch back to the V0 engine for 'Pipeline Parallelism without Ray "
        "distributed executor'"
    )


def test_why_on_the_oracle_raising_under_vllm_use_v1() -> None:
    """Variant: the raise of the same oracle under VLLM_USE_V1=1 names the setting its test reads."""
    result = run_cli(
        [
            "why",
            "--format",
            "json",
            "--framework-version",
            "0.8.5.post1",
            "NotImplementedError: VLLM_USE_V1=1 is not supported with --kv-cache-dtype.",
        ]
    )
    first = result.json["why"]["matches"][0]
    assert first["function"] == "_raise_or_fallback"
    assert [s["flag"] for s in first["settings"]] == ["--kv-cache-dtype"]
    assert (
        "(EngineArgs._is_v1_supported_oracle, vllm/engine/arg_utils.py:1371 in 0.8.5.post1)" in first["fix"]
    )


def test_rs061_variants() -> None:
    raised = command(
        "--framework-version", "0.8.5.post1", "-c", "VLLM_USE_V1=1 vllm serve /m --pipeline-parallel-size 2"
    )
    assert shown_codes(raised) == [("RS061", "error")]
    ray = "vllm serve /m --pipeline-parallel-size 2 --distributed-executor-backend ray"
    assert [f["code"] for f in command("--framework-version", "0.8.5.post1", "-c", ray)["findings"]].count(
        "RS061"
    ) == 0
    v0 = command("--framework-version", "0.8.5.post1", "-c", "VLLM_USE_V1=0 vllm serve /m -pp 2")
    assert "RS061" not in [f["code"] for f in v0["findings"]]


def test_autotuning76_a_level_word_gets_the_shorthand() -> None:
    """b -> a: PA011's fix was "single-quote the JSON"; `O1` is -O1 split in two."""
    error = finding(check("autotuning76_compilation_config_O1.cmd"), "PA011")
    assert error["fix"] == (
        "write -O1 as one word (vLLM's shorthand for the compilation level), not --compilation-config O1: "
        "the long flag takes a JSON object"
    )


def test_key_value_multimodal_limits_per_release() -> None:
    """vllm#21615 (0.10.0) a; recipes#446 b: nothing names the release, and some releases take key=value."""
    warning = finding(check("vllm21615_limit_mm_key_value_0100.cmd"), "PA011")
    assert warning["severity"] == "warning"
    assert warning["fix"].startswith("this release takes JSON here, not key=value pairs")
    assert finding(check("recipes446_gemma4_limit_mm_key_value.cmd"), "PA011")["severity"] == "info"


def _generator() -> Any:
    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_vllm_engine_overrides.py"
    spec = importlib.util.spec_from_file_location("gen_vllm_engine_overrides", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Cut from vllm 0.9.2's vllm/engine/arg_utils.py (bodies cut to what is read).
ARG_UTILS_092 = """
class EngineArgs:
    def _is_v1_supported_oracle(self, model_config):
        if (self.pipeline_parallel_size > 1
                and self.distributed_executor_backend != "ray"):
            name = "Pipeline Parallelism without Ray distributed executor"
            _raise_or_fallback(feature_name=name, recommend_to_remove=False)
            return False
        if model_config.dtype == torch.float32:
            _raise_or_fallback(feature_name=f"--dtype {model_config.dtype}", recommend_to_remove=False)

    def _set_default_args_v1(self, usage_context, model_config):
        if model_config.runner_type != "pooling":
            self.enable_chunked_prefill = True
            if self.enable_prefix_caching is None:
                self.enable_prefix_caching = True
        if self.max_num_seqs is None:
            self.max_num_seqs = 256
"""


def test_the_generator_reads_overwrites_fallbacks_and_sampling_keys() -> None:
    gen = _generator()
    assert gen.overwrites(ARG_UTILS_092, "a.py") == [
        {
            "field": "enable_chunked_prefill",
            "value": True,
            "method": "_set_default_args_v1",
            "when": ["model_config.runner_type != 'pooling'"],
            "where": "a.py:14",
        }
    ]  # the defaults under `is None` are not overwrites
    fallbacks = gen.v1_fallbacks(ARG_UTILS_092, "a.py")
    assert [(f["feature"], f["fields"]) for f in fallbacks] == [
        (
            "Pipeline Parallelism without Ray distributed executor",
            ["distributed_executor_backend", "pipeline_parallel_size"],
        ),
        ("--dtype {}", []),
    ]
    model = (
        "class ModelConfig:\n"
        "    def get_diff_sampling_param(self):\n"
        "        available_params = ['top_k', 'min_p']\n"
    )
    assert gen.sampling_keys(model, "m.py") == {"keys": ["top_k", "min_p"], "where": "m.py:3"}
    assert gen.v1_default('env = {"VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", "1")))}') == "1"


def test_the_bundled_table_covers_every_bundled_release() -> None:
    import json

    from argtrace.frameworks.schema import bundled_versions
    from argtrace.package_data import package_file

    data = json.loads(package_file("frameworks/data/vllm_engine_overrides.json").read_text("utf-8"))
    assert data["generated_by"] == "scripts/gen_vllm_engine_overrides.py"
    assert set(data["releases"]) == set(bundled_versions("vllm", include_user=False))
