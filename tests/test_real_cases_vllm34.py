"""A small unsampled vLLM batch of the 34th session (docs/real_cases.md, "vLLM, 34th session"), measured
before any fix on 6f9b3103.

Seven failure reports of 2025-2026 taken in the order the `search` tool gave them for launch failures
(VLLM_ATTENTION_BACKEND=TORCH_SDPA on CUDA under 0.7.3, a legacy rope_scaling object through --hf-overrides,
an EAGLE-3 draft without num_speculative_tokens, an embedding model with --kv-cache-dtype bfloat16 or fp8,
FlashInfer with an FP8 KV cache on Hopper, Qianfan-VL's --hf-overrides under transformers 4.56) and two
correct launches (``ok_*``). Each case under ``tests/data/real_cases_vllm34/`` names its URL in its header;
``why/`` holds the error text a report quotes. A new user's machine (no resolver environment, no Hugging Face
cache); ``--gpu`` and ``--framework-version`` where the report names them. Each command runs once per worker
(tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batches import (
    CheckBatch,
    finding,
    missing_cases,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm34"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (6f9b3103) and now.
CLASSES = {
    "vllm14320_torch_sdpa_on_cuda_073.cmd": ("b", "a"),  # why: the selector; now VLLM_ATTENTION_BACKEND
    "vllmpr20857_hf_overrides_legacy_yarn_type.cmd": ("c", "c"),
    "vllmpr44566_eagle3_speculators_no_num_tokens.cmd": ("c", "a"),  # PA062
    "vllm55046_embedding_kv_cache_dtype_bfloat16.cmd": ("b", "b"),  # why: the selector, "change the backend"
    "vllm55048_embedding_fp8_kv_cache.cmd": ("c", "c"),
    "vllm29531_gemma3_fp8_kv_flashinfer_hopper.cmd": ("c", "c"),
    "qianfanvl8_hf_overrides_internvl_aimv2.cmd": ("b", "b"),  # why: transformers' register, no version
}
OPTIONS: dict[str, tuple[str, ...]] = {
    "vllm14320_torch_sdpa_on_cuda_073.cmd": ("--framework-version", "0.7.3"),
    "vllmpr20857_hf_overrides_legacy_yarn_type.cmd": ("--framework-version", "0.9.2"),
    "ok_vllmpr20857_hf_overrides_rope_type_key.cmd": ("--framework-version", "0.9.2"),
    "vllmpr44566_eagle3_speculators_no_num_tokens.cmd": ("--gpu", "rtx-4090"),
    "vllm29531_gemma3_fp8_kv_flashinfer_hopper.cmd": ("--gpu", "h100", "--framework-version", "0.11.2"),
    "qianfanvl8_hf_overrides_internvl_aimv2.cmd": ("--framework-version", "0.9.2"),
    "ok_speculators149_qwen3_8b_eagle3.cmd": ("--framework-version", "0.11.0"),
}
CORRECT = ["ok_speculators149_qwen3_8b_eagle3.cmd", "ok_vllmpr20857_hf_overrides_rope_type_key.cmd"]
# what `check` rightly says: the cause of PR#44566; on the speculators#149 launch as posted, --dtype written
# twice (the first value is lost: PA006 names it, the launch still starts)
ALARMS = {
    "vllmpr44566_eagle3_speculators_no_num_tokens.cmd": [("PA062", "warning")],
    "ok_speculators149_qwen3_8b_eagle3.cmd": [("PA006", "warning")],
}


BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([0, 3, 4, 0], [2, 2, 3, 0]), alarms=ALARMS)
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


def test_pa062_names_the_release_site_and_what_it_rests_on() -> None:
    warning = finding(check("vllmpr44566_eagle3_speculators_no_num_tokens.cmd"), "PA062")
    assert warning["basis"] == "assumed"
    assert warning["setting"] == "speculative_config"
    assert warning["message"] == (
        '--speculative-config names a draft model ("model": "nm-testing/Llama3_2_1B_speculator.eagle3") but '
        'no "num_speculative_tokens": vllm 0.33.0 takes the count from the draft\'s config.json (n_predict) '
        "when it is not written, and an eagle3 draft has none, so SpeculativeConfig.__post_init__ "
        "(vllm/config/speculative.py:1615) refuses the launch at start-up: "
        '"A speculative model was provided, '
        "but `num_speculative_tokens` was not provided\" (assumed: the draft's config.json was not read; "
        "nothing names the release, the newest that takes these flags is assumed)"
    )
    assert warning["fix"].startswith('write "num_speculative_tokens" in --speculative-config')


_TARGET = "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "


def _pa062(spec: str, *options: str) -> list[str]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", _TARGET + spec]).json
    said = [f["message"] for f in report["findings"] if f["code"] == "PA062"]
    return [
        m.split(" takes the count")[0].rsplit(": ", 1)[1] + " " + m.split(", so ")[1].split(" refuses")[0]
        for m in said
    ]


def test_pa062_only_for_a_draft_without_n_predict_and_without_the_count() -> None:
    """The release's own refusal (its raise-site index) for EAGLE, EAGLE-3 and separate-model drafts without
    the count; nothing with the count written, for an MTP, Medusa or n-gram method, or for a draft whose
    method is not written and whose name does not say EAGLE."""
    eagle3 = '\'{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}\''
    assert _pa062(eagle3, "--framework-version", "0.9.2") == [
        "vllm 0.9.2 SpeculativeConfig._verify_args (vllm/config.py:2863)"
    ]
    assert _pa062(eagle3, "--framework-version", "0.7.3") == []  # no --speculative-config: argparse first
    assert _pa062(eagle3, "--framework-version", "0.33.0") == [
        "vllm 0.33.0 SpeculativeConfig.__post_init__ (vllm/config/speculative.py:1615)"
    ]
    unnamed = '\'{"model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}\''
    assert len(_pa062(unnamed, "--framework-version", "0.33.0")) == 1
    draft = '\'{"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct"}\''
    assert len(_pa062(draft, "--framework-version", "0.33.0")) == 1
    for spec in (
        '\'{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
        '"num_speculative_tokens": 3}\'',
        '\'{"method": "mtp", "model": "meta-llama/Llama-3.1-8B-Instruct"}\'',
        '\'{"method": "medusa", "model": "abhigoyal/vllm-medusa-llama-68m-random"}\'',
        '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'',
        '\'{"model": "meta-llama/Llama-3.2-1B-Instruct"}\'',
    ):
        assert _pa062(spec, "--framework-version", "0.33.0") == [], spec


def test_why_names_the_variable_for_releases_before_the_flag() -> None:
    """vllm#14320: "Invalid attention backend for cuda" is the selector's refusal from 0.7.3 to 0.33.0; the
    releases before --attention-backend (0.13.0, from the generated schemas) force the backend only with
    VLLM_ATTENTION_BACKEND, and the fix says so."""
    section = why("vllm14320_torch_sdpa_on_cuda_073.cmd")
    first = section["matches"][0]
    assert (section["confidence"], first["function"]) == ("strong", "_cached_get_attn_backend")
    assert first["fix"] == (
        "make the condition false (not attention_cls): change --attention-backend; --attention-backend "
        "exists from vllm 0.13.0 on; in vllm 0.7.3-0.12.0 only VLLM_ATTENTION_BACKEND forces a backend: "
        "unset it (or "
        "name one this GPU takes) so that the selector chooses"
    )


def test_a_site_of_flag_releases_only_keeps_its_fix() -> None:
    """vllm#55046's "No valid attention backend found" is CudaPlatformBase.get_attn_backend_cls of 0.18.1 on,
    all of them with --attention-backend: nothing is added (the cause, --kv-cache-dtype on an encoder-only
    model, stays unnamed: class b)."""
    first = why("vllm55046_embedding_kv_cache_dtype_bfloat16.cmd")["matches"][0]
    assert (
        first["fix"]
        == "make the condition false (len(valid_backends_priorities) == 0): change --attention-backend"
    )


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "vllmpr20857_hf_overrides_legacy_yarn_type.cmd": (
        "rope_type",
        "whether a release maps a legacy rope_scaling 'type' key given through --hf-overrides "
        "(patch_rope_scaling after the overrides, fixed after 0.9.2) is not read from the wheels; why has no "
        "site for a bare KeyError",
    ),
    "vllm55046_embedding_kv_cache_dtype_bfloat16.cmd": (
        "kv-cache-dtype",
        "the model's architecture (encoder-only, no KV cache) is in its config.json, which a new user's "
        "machine does not have; why's selector fix names the backend, not --kv-cache-dtype",
    ),
    "vllm55048_embedding_fp8_kv_cache.cmd": (
        "kv-cache-dtype",
        "the same: an encoder-only model is not known without its config.json, and the refusal comes at the "
        "first request",
    ),
    "vllm29531_gemma3_fp8_kv_flashinfer_hopper.cmd": (
        "fp8",
        "`vllm bench latency` is read as an engine start since session 35 (frameworks/vllm_bench.py), but "
        "which FlashInfer builds take an FP8 KV cache on Hopper is not read from the FlashInfer wheels",
    ),
    "qianfanvl8_hf_overrides_internvl_aimv2.cmd": (
        "transformers",
        "which transformers releases a vLLM release can import (its own aimv2 config registered twice) is "
        "not read; why's site is transformers' register, whose fix does not name the version pair",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
