"""The vLLM batch of session 29 (docs/real_cases.md, "vLLM, 29th session"), measured before any fix: hybrid
models' Mamba cache modes against prefix caching (a mode dropped without it, a mode downgraded, no prefix hits
with MTP), rerankers served without the pooling runner or converted without their head, a draft model's
tensor-parallel size under EAGLE-3, pipeline parallelism on a class without it, an ``--hf-overrides`` RoPE key
at the wrong level of a composite config, and ``why`` on texts pasted without their closing full stop. Each
case under ``tests/data/real_cases_vllm29/`` names its URL on its first line: ``.cmd`` launches for
``argtrace check -c``, ``.py`` scripts, ``.txt`` the text a report quotes for ``argtrace why``, ``ok_*`` the
correct launches collected with them. The machine is a new user's (no resolver environment, no Hugging Face
cache)."""

from __future__ import annotations

import copy
import functools
import sys
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
from tests.conftest import REPO, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm29"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 40d74275) and now.
CLASSES = {
    "llmscaler361_reranker_served_generate.cmd": ("c", "c"),
    "syv25_mamba_align_prefix_off_0280.cmd": ("c", "a"),
    "syv25_mamba_mode_none_warning.txt": ("a", "a"),
    "vllm23615_reranker_task_score_0092.cmd": ("c", "c"),
    "vllm31345_eagle3_draft_tp1.py": ("c", "a"),
    "vllm38898_align_mtp_no_hits.cmd": ("c", "c"),
    "vllm41899_omni_thinker_lora.txt": ("d", "a"),
    "vllm43062_convert_classify_reranker.cmd": ("c", "c"),
    "vllm51250_mamba_all_downgraded_0271.cmd": ("c", "c"),
    "vllm51250_mamba_all_fallback_warning.txt": ("a", "a"),
    "vllmpr43477_glm51_pp_not_supported.txt": ("a", "a"),
    "vllmpr43477_glm51_tp8_pp2.cmd": ("c", "c"),
    "vllmpr54289_rope_override_top_level.cmd": ("c", "c"),
}
CORRECT = [
    "ok_club3090pr1093_mtp_mamba_align_0271.cmd",
    "ok_infera68_kimi_k3_prefix_caching.cmd",
    "ok_ogx4902_qwen3_reranker_pooling.cmd",
    "ok_tanguille4509_kv_cache_memory_0271.cmd",
    "ok_vllmascend7103_qwen35_mamba_align_0170.cmd",
]
# the release a report names (its text, its image or package, the PR's date), given as --framework-version
RELEASES = {
    "llmscaler361_reranker_served_generate.cmd": "0.14.0",
    "ok_club3090pr1093_mtp_mamba_align_0271.cmd": "0.27.1",
    "ok_tanguille4509_kv_cache_memory_0271.cmd": "0.27.1",
    "ok_vllmascend7103_qwen35_mamba_align_0170.cmd": "0.17.0",
    "syv25_mamba_align_prefix_off_0280.cmd": "0.28.0",
    "syv25_mamba_mode_none_warning.txt": "0.28.0",
    "vllm23615_reranker_task_score_0092.cmd": "0.9.2",
    "vllm31345_eagle3_draft_tp1.py": "0.13.0",
    "vllm51250_mamba_all_downgraded_0271.cmd": "0.27.1",
    "vllm51250_mamba_all_fallback_warning.txt": "0.27.1",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "llmscaler361_reranker_served_generate.cmd": (
        "--runner",
        "the original Qwen3 reranker's config.json names Qwen3ForCausalLM, so vLLM serves it as a generative "
        "model; that the checkpoint is a reranker is only in its name, and the config is not read on a new "
        "user's machine",
    ),
    "vllm23615_reranker_task_score_0092.cmd": (
        "--hf-overrides",
        "the original Qwen3 reranker scores through its yes/no token logits only with the "
        "Qwen3ForSequenceClassification override (classifier_from_token, is_original_qwen3_reranker); the "
        "checkpoint's kind is not read (the PR012 warning on CUDA_VISIABLE_DEVICES is a second, true "
        "mistake)",
    ),
    "vllm38898_align_mtp_no_hits.cmd": (
        "--mamba-cache-mode",
        "no prefix-cache hits with MTP in align mode is the scheduler's behaviour at run time on that "
        "nightly, not a refusal or an override a release's code shows",
    ),
    "vllm43062_convert_classify_reranker.cmd": (
        "--hf-overrides",
        "--convert classify wraps the causal LM in a classification head the original reranker checkpoint "
        "lacks (score.weight); the checkpoint's tensors and kind are not read on a new user's machine",
    ),
    "vllm51250_mamba_all_downgraded_0271.cmd": (
        "--mamba-cache-mode",
        "'all' falls back to 'align' for a class without Mamba prefix caching support "
        "(supports_mamba_prefix_caching); the class of a Hub id is not read on a new user's machine, and the "
        "model table records no such interface",
    ),
    "vllmpr43477_glm51_tp8_pp2.cmd": (
        "--pipeline-parallel-size",
        "the model is a local directory (/model-cache/) whose config.json is not on this machine: the "
        "class's SupportsPP interface is read only with the config (--model-config)",
    ),
    "vllmpr54289_rope_override_top_level.cmd": (
        "--hf-overrides",
        "a top-level rope_parameters override misses a composite config's text_config; which configs nest "
        "their RoPE settings is the model's config.json, not read on a new user's machine",
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


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([3, 0, 9, 1], [6, 0, 7, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == 1


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_syv25_a_mamba_cache_mode_without_prefix_caching_is_lost() -> None:
    """c -> a: vLLM 0.28.0 sets the mode to 'none' when prefix caching is disabled."""
    report = check("syv25_mamba_align_prefix_off_0280.cmd")
    assert shown_codes(report) == [("RS075", "error")]
    cause = finding(report, "RS075")
    assert (cause["basis"], cause["setting"]) == ("framework-code", "mamba_cache_mode")
    assert cause["message"] == (
        "--mamba-cache-mode align is lost: prefix caching is disabled (--no-enable-prefix-caching), and vllm "
        "0.28.0 then sets the Mamba cache mode to 'none' (MambaModelConfig.verify_and_update_config, "
        "vllm/model_executor/models/config.py:632: \"Mamba cache mode is set to 'none' when prefix caching "
        "is disabled\"); the server's \"non-default args\" line still shows mamba_cache_mode 'align'"
    )
    assert cause["fix"] == (
        "enable prefix caching (--enable-prefix-caching): vllm 0.28.0 keeps a Mamba cache mode only with it; "
        "or remove --mamba-cache-mode"
    )


_HYBRID = "vllm serve Qwen/Qwen3.6-27B"


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        # the mode dropped: named release (error), no mode or the default mode (nothing)
        ("0.16.0", "--no-enable-prefix-caching --mamba-cache-mode all", [("RS075", "error")]),
        ("0.28.0", "--no-enable-prefix-caching", []),
        ("0.28.0", "--no-enable-prefix-caching --mamba-cache-mode none", []),
        # prefix caching left to its default (the model class decides it): not judged
        ("0.28.0", "--mamba-cache-mode align", []),
        # 0.33.0 no longer passes the flag on (PA016 says it has no effect)
        ("0.33.0", "--no-enable-prefix-caching --mamba-cache-mode align", []),
        # a release whose wheel was not read
        ("0.15.1", "--no-enable-prefix-caching", []),
        # what prefix caching in align mode asserts
        (
            "0.28.0",
            "--enable-prefix-caching --mamba-cache-mode align --no-enable-chunked-prefill",
            [("RS076", "warning")],
        ),
        ("0.28.0", "--enable-prefix-caching --mamba-cache-mode all --no-enable-chunked-prefill", []),
        # 0.32.0 asserts chunked prefill under any mode (it has no 'all' mode left)
        (
            "0.32.0",
            "--enable-prefix-caching --mamba-cache-mode align --no-enable-chunked-prefill",
            [("RS076", "warning")],
        ),
        (
            "0.16.0",
            "--enable-prefix-caching --mamba-cache-mode align --speculative-config "
            '\'{"method":"mtp","num_speculative_tokens":1}\'',
            [("RS076", "warning")],
        ),
        (
            "0.17.1",
            "--enable-prefix-caching --mamba-cache-mode align --speculative-config "
            '\'{"method":"mtp","num_speculative_tokens":1}\'',
            [],
        ),
    ],
)
def test_mamba_cache_mode_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which releases and settings make RS075/RS076 speak."""
    report = command("--framework-version", release, "-c", f"{_HYBRID} {words}")
    assert [(c, s) for c, s in shown_codes(report) if c in ("RS075", "RS076")] == expected


def test_rs076_names_the_assert() -> None:
    report = command(
        "--framework-version",
        "0.28.0",
        "-c",
        f"{_HYBRID} --enable-prefix-caching --mamba-cache-mode align --no-enable-chunked-prefill",
    )
    cause = finding(report, "RS076")
    assert cause["message"] == (
        "--mamba-cache-mode align with --enable-prefix-caching and --no-enable-chunked-prefill stops the "
        'start on a hybrid (Mamba) model, the only kind that reads the mode: vllm 0.28.0 asserts "Chunked '
        "prefill is required for mamba cache mode 'align'.\" (MambaModelConfig.verify_and_update_config, "
        "vllm/model_executor/models/config.py:622)"
    )
    assert cause["setting"] == "enable_chunked_prefill"


def test_the_mamba_cache_table_is_generated() -> None:
    """frameworks/data/vllm_mamba_cache.json is scripts/gen_vllm_mamba_cache.py's output: the readings of a
    release's code, on the forms they tell apart."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_mamba_cache import ARG_UTILS, MODELS_CONFIG, facts

    models = (
        "class MambaModelConfig:\n"
        "    def verify_and_update_config(cls, vllm_config):\n"
        "        cache_config = vllm_config.cache_config\n"
        "        if cache_config.enable_prefix_caching:\n"
        "            if cache_config.mamba_cache_mode == 'align':\n"
        "                assert vllm_config.scheduler_config.enable_chunked_prefill, 'needs chunked'\n"
        "                assert not vllm_config.speculative_config, 'no drafts'\n"
        "                assert cache_config.block_size, 'unknown form'\n"
        "        else:\n"
        "            if cache_config.mamba_cache_mode != 'none':\n"
        "                cache_config.mamba_cache_mode = 'none'\n"
        "                logger.warning('set to none')\n"
    )
    args = "def create(self):\n    return CacheConfig(mamba_cache_mode=self.mamba_cache_mode)\n"
    assert facts({MODELS_CONFIG: models, ARG_UTILS: args}) == {
        "reaches_cache": True,
        "off_without_prefix_caching": {"where": f"{MODELS_CONFIG}:11", "warning": "set to none"},
        "prefix_caching_requires": [
            {
                "mode": "align",
                "needs": "chunked_prefill",
                "message": "needs chunked",
                "where": f"{MODELS_CONFIG}:6",
            },
            {
                "mode": "align",
                "needs": "no_speculative",
                "message": "no drafts",
                "where": f"{MODELS_CONFIG}:7",
            },
        ],
    }
    # the flag only warned about (vLLM 0.33.0): it does not reach the cache
    assert facts({ARG_UTILS: "def create(self):\n    logger.warning('deprecated')\n"}) == {
        "reaches_cache": False
    }


def test_why_on_a_title_without_its_full_stop() -> None:
    """d -> a: the issue's title drops the message's closing full stop; it was V0's shorter "{} does
    not support LoRA" (LoRANotSupportedWorkerBase.remove_lora, "avoid the call path"), now V1's
    load_lora_model, whose interface check names the model and --enable-lora."""
    first = _why("vllm41899_omni_thinker_lora.txt")["matches"][0]
    assert (first["function"], first["file"], first["line"]) == (
        "LoRAModelRunnerMixin.load_lora_model",
        "vllm/v1/worker/lora_model_runner_mixin.py",
        50,
    )
    assert [s["flag"] for s in first["settings"]] == ["--model", "--enable-lora"]
    assert first["fix"] == (
        "make the condition false (not supports_lora(model)): change --model, --enable-lora"
    )


@pytest.mark.parametrize(
    ("text", "function"),
    [
        # a stop missing inside the text is another wording: not taken for the message
        (
            "Qwen2ForCausalLM does not support LoRA yet and more words",
            "LoRANotSupportedWorkerBase.remove_lora",
        ),
        # the message as printed, with its stop
        ("Qwen2ForCausalLM does not support LoRA yet.", "LoRAModelRunnerMixin.load_lora_model"),
    ],
)
def test_a_dropped_full_stop_only_at_the_end(text: str, function: str) -> None:
    """Variants (not reports) of the matcher's end-of-text allowance."""
    from argtrace.commands.why import explain

    assert explain(text)["matches"][0]["function"] == function


def test_why_on_the_warning_lines_names_both_flags() -> None:
    """Class a as first seen: the log line of each override names the site and the two flags."""
    for name in ("syv25_mamba_mode_none_warning.txt", "vllm51250_mamba_all_fallback_warning.txt"):
        first = _why(name)["matches"][0]
        assert first["function"] == "MambaModelConfig.verify_and_update_config"
        assert [s["flag"] for s in first["settings"]] == ["--enable-prefix-caching", "--mamba-cache-mode"]


def test_why_on_pipeline_parallelism_a_class_lacks() -> None:
    """Class a as first seen: the site and --pipeline-parallel-size."""
    first = _why("vllmpr43477_glm51_pp_not_supported.txt")["matches"][0]
    assert first["function"] == "ModelConfig.verify_with_parallel_config"
    assert [s["flag"] for s in first["settings"]] == ["--pipeline-parallel-size"]


def test_vllm31345_a_draft_tp_size_the_eagle3_drafter_never_reads() -> None:
    """c -> a: in 0.13.0 no V1 code reads the draft's parallel configuration; the EAGLE-3 head is split as
    the target is."""
    report = check("vllm31345_eagle3_draft_tp1.py")
    assert shown_codes(report) == [("PA057", "warning")]
    cause = finding(report, "PA057")
    assert (cause["setting"], cause["at"]) == (
        "speculative_config.draft_tensor_parallel_size",
        "vllm31345_eagle3_draft_tp1.py:7:121",
    )
    assert cause["message"] == (
        '"draft_tensor_parallel_size": 1 in --speculative-config has no effect: the eagle3 drafter of vllm '
        "0.13.0 is built inside the target's model runner and runs with --tensor-parallel-size 4; no code of "
        'its V1 engine reads it, for "method": "draft_model"'
    )
    assert cause["fix"] == (
        "remove draft_tensor_parallel_size (the eagle3 draft is split as the target is), or write 4"
    )


_EAGLE = (
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4 --speculative-config "
    '\'{"method": "%s", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3, '
    '"draft_tensor_parallel_size": %d}\''
)


@pytest.mark.parametrize(
    ("release", "method", "size", "expected"),
    [
        ("0.28.0", "eagle3", 1, [("PA057", "warning")]),
        ("0.28.0", "mtp", 1, [("PA057", "warning")]),
        # the target's own size: what runs anyway
        ("0.28.0", "eagle3", 4, []),
        # the separate draft model's proposer reads it (and refuses a size other than the target's)
        ("0.28.0", "draft_model", 1, []),
        # a release whose wheel was not read
        ("0.9.2", "eagle3", 1, []),
        # vllm-ascend's proposer honours the key (an Ascend launch)
        ("0.28.0 ASCEND_RT_VISIBLE_DEVICES=0,1,2,3", "eagle3", 1, []),
    ],
)
def test_draft_tp_variants(release: str, method: str, size: int, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which methods, sizes and releases make PA057 speak."""
    release, _, env = release.partition(" ")
    report = command(
        "--framework-version", release, "-c", (f"{env} " if env else "") + _EAGLE % (method, size)
    )
    assert [(c, s) for c, s in shown_codes(report) if c == "PA057"] == expected


def test_the_draft_tp_table_is_generated() -> None:
    """frameworks/data/vllm_draft_tp.json is scripts/gen_vllm_draft_tp.py's output: every read of the draft's
    parallel configuration under vllm/v1, and whether all of them are the separate draft model's."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_draft_tp import DRAFT_MODEL, facts

    draft = "class DraftModelProposer:\n    def load(self):\n        tp = self.spec.draft_parallel_config\n"
    helper = "def create_vllm_config_for_draft_model(old):\n    return old.draft_parallel_config\n"
    assert facts({DRAFT_MODEL: draft, "vllm/v1/spec_decode/utils.py": helper}) == {
        "readers": [
            {"where": f"{DRAFT_MODEL}:3", "function": "load", "attribute": "draft_parallel_config"},
            {
                "where": "vllm/v1/spec_decode/utils.py:2",
                "function": "create_vllm_config_for_draft_model",
                "attribute": "draft_parallel_config",
            },
        ],
        "draft_model_only": True,
    }
    eagle = "class EagleProposer:\n    def load(self):\n        return self.spec.draft_tensor_parallel_size\n"
    assert facts({"vllm/v1/spec_decode/eagle.py": eagle})["draft_model_only"] is False
    assert facts({}) == {"readers": [], "draft_model_only": True}
