"""The vLLM batch of session 19 (docs/real_cases.md, "vLLM, 19th session"), measured before any fix:
``--tokenizer-mode`` values a release's registry refuses, a KV connector a release no longer registers, the
scheduler's batched-token check, a deprecated variable's replacement, ``serve`` written twice in a recipe, a
plugin's refusal of chunked prefill with prefix caching, a Mamba hybrid with prefix caching, a reranker
served without its overrides, a tensor-parallel size the model's heads refuse. Each case under
``tests/data/real_cases_vllm19/`` names its URL on its first line: ``.cmd`` launches (``argtrace check -c``),
``.txt`` the text a report quotes (``argtrace why``), ``ok_*`` the correct launches collected with them. The
machine is a new user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import check_case, finding, shown_codes, table_counts, unsourced, why_with_release
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm19"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 46b09e7) and now.
CLASSES = {
    "vllm30933_tokenizer_mode_v32.cmd": ("c", "a"),
    "vllm30933_tokenizer_mode_v32.txt": ("b", "a"),
    "sendnn851_reranker_batched_tokens.txt": ("a", "a"),
    "vllm36734_qwen35_prefix_caching.cmd": ("c", "c"),
    "euroeval1488_attention_backend_env.txt": ("b", "a"),
    "qwen3emb24_reranker_task_score.cmd": ("c", "c"),
    "recipes_ds32_serve_serve.cmd": ("b", "a"),
    "openvino16_chunked_prefix.cmd": ("c", "c"),
    "openvino16_chunked_prefix.txt": ("b", "b"),
    "pr55693_nixl_kv_both.txt": ("a", "a"),
    "gpustack2259_tp3_heads.cmd": ("c", "c"),
    "lmcache1759_v0_connector_0110.cmd": ("a", "a"),
    "lmcache1759_v0_connector_0110.txt": ("b", "a"),
    "pr27195_async_scheduling_ray.txt": ("a", "a"),
    "qwen3coder578_async_mamba_prefix.txt": ("b", "b"),
}
CORRECT = [
    "ok_gonka1215_pp_logprobs_mode.cmd",
    "ok_recipes_qwen36_dp_ep_mm.cmd",
    "ok_recipes_qwen36_mtp.cmd",
    "ok_recipes_mimo_dp_ep_generation_config.cmd",
    "ok_recipes_paddleocr_vl.cmd",
]
# the release a report names (its title, a log line, a version in the text), given as --framework-version
RELEASES = {
    "vllm30933_tokenizer_mode_v32.cmd": "0.12.0",
    "vllm30933_tokenizer_mode_v32.txt": "0.12.0",
    "vllm36734_qwen35_prefix_caching.cmd": "0.17.1",
    "euroeval1488_attention_backend_env.txt": "0.14.1",
    "gpustack2259_tp3_heads.cmd": "0.8.5.post1",
    "lmcache1759_v0_connector_0110.cmd": "0.11.0",
    "lmcache1759_v0_connector_0110.txt": "0.11.0",
    "ok_gonka1215_pp_logprobs_mode.cmd": "0.20.0",
}


def check(name: str, release: str | None = None) -> dict[str, Any]:
    version = release or RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


def why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


shown = shown_codes


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([4, 6, 5, 0], [9, 2, 4, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown(check(name)) == []


def test_vllm30933_a_tokenizer_mode_the_release_does_not_register() -> None:
    """was c: from 0.12.0 --tokenizer-mode is a free string; 0.12.0 registers hf and mistral only, and
    deepseek_v32 is registered from 0.13.0 (read from the wheels: frameworks/data/vllm_tokenizer_modes.json).
    """
    report = check("vllm30933_tokenizer_mode_v32.cmd")
    assert shown(report) == [("RS054", "warning")]
    rs054 = finding(report, "RS054")
    assert rs054["message"] == (
        "--tokenizer-mode deepseek_v32: vllm 0.12.0 registers no tokenizer of that name (it registers hf, "
        'mistral and reads auto, custom, slow before the lookup), so loading the tokenizer raises "No '
        "tokenizer registered for tokenizer_mode='deepseek_v32'\" at start (vllm/tokenizers/registry.py:82) "
        "unless a plugin registers it; vllm 0.13.0-0.33.0 register deepseek_v32"
    )
    assert rs054["fix"] == (
        "run a release that registers deepseek_v32 (vllm 0.13.0-0.33.0), or give one vllm 0.12.0 takes: "
        "auto, custom, hf, mistral, slow"
    )
    # the registry does not read the GPU: no assumed GPU weakens it (verdicts.GPU_FREE)
    assert (rs054["basis"], "assumed" in rs054) == ("framework-code", False)


@pytest.mark.parametrize(("release", "mode"), [("0.13.0", "deepseek_v32"), ("0.33.0", "DeepSeek_V32")])
def test_a_registered_tokenizer_mode_is_clean(release: str, mode: str) -> None:
    """0.13.0 registers deepseek_v32; 0.33.0 lowercases the word first (ModelConfig's field validator)."""
    report = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            release,
            "-c",
            f"vllm serve m --tokenizer-mode {mode}",
        ]
    ).json
    assert [f["code"] for f in report["findings"] if f["code"] == "RS054"] == []


def test_slow_is_no_longer_taken_from_0_31() -> None:
    """0.30.0 still translates 'slow' before the lookup; 0.31.0 on neither translate nor register it."""
    codes = {
        release: [
            f["code"]
            for f in run_cli(
                [
                    "check",
                    "--format",
                    "json",
                    "--framework-version",
                    release,
                    "-c",
                    "vllm serve m --tokenizer-mode slow",
                ]
            ).json["findings"]
            if f["code"] == "RS054"
        ]
        for release in ("0.30.0", "0.31.0")
    }
    assert codes == {"0.30.0": [], "0.31.0": ["RS054"]}


def test_vllm30933_why_names_the_modes_the_release_takes() -> None:
    """was b: "change --tokenizer-mode", without the names 0.12.0 takes or the releases that take the
    word."""
    first = why("vllm30933_tokenizer_mode_v32.txt")["matches"][0]
    assert (first["function"], first["fix"]) == (
        "TokenizerRegistry.get_tokenizer",
        "--tokenizer-mode 'deepseek_v32' names no tokenizer vllm 0.12.0 registers; it takes auto, custom, "
        "hf, mistral, slow; vllm 0.13.0-0.33.0 take 'deepseek_v32': run one of those, or give a name vllm "
        "0.12.0 takes",
    )


def test_lmcache1759_a_v0_connector_on_0_11() -> None:
    """check was already a (PA043 and its V1 name); why was b and now lists the connectors 0.11.0 registers
    and the releases that still register the V0 one."""
    report = check("lmcache1759_v0_connector_0110.cmd")
    assert shown(report) == [("PA043", "error")]
    assert finding(report, "PA043")["fix"] == 'use "kv_connector":"LMCacheConnectorV1"'
    first = why("lmcache1759_v0_connector_0110.txt")["matches"][0]
    assert (first["function"], first["fix"]) == (
        "KVConnectorFactory.get_connector_class",
        "--kv-transfer-config's kv_connector 'LMCacheConnector' names no KV connector vllm 0.11.0 registers; "
        "it takes LMCacheConnectorV1, MultiConnector, NixlConnector, OffloadingConnector, P2pNcclConnector, "
        "SharedStorageConnector; vllm 0.8.5.post1, 0.9.2 take 'LMCacheConnector': run one of those, or give "
        "a name vllm 0.11.0 takes",
    )


def test_recipes_serve_written_twice() -> None:
    """was b: PA001's fix said to remove the stray word, which is the model; the second 'serve' took the
    model_tag slot (argparse's consume_positionals)."""
    report = check("recipes_ds32_serve_serve.cmd")
    pa001 = finding(report, "PA001")
    assert (pa001["severity"], pa001["message"], pa001["fix"]) == (
        "error",
        "'deepseek-ai/DeepSeek-V3.2' (after serve) is not a value of any flag: 'serve' is written twice "
        "(vllm serve serve ...), so argparse took the second 'serve' as model_tag, and "
        "'deepseek-ai/DeepSeek-V3.2' has no place left: \"unrecognized arguments\" (exit 2)",
        "write 'serve' once (vllm serve deepseek-ai/DeepSeek-V3.2 ...); 'deepseek-ai/DeepSeek-V3.2' is "
        "model_tag again",
    )
    assert {s["name"]: s["effective"] for s in report["settings"]}["model_tag"] == "serve"


def test_a_model_named_serve_is_not_a_repeated_subcommand() -> None:
    """Nothing left over: the word after serve is the model, whatever its name."""
    report = run_cli(
        ["check", "--format", "json", "--framework-version", "0.33.0", "-c", "vllm serve serve"]
    ).json
    assert [f["code"] for f in report["findings"] if f["code"] == "PA001"] == []


def test_euroeval1488_why_names_the_replacement_the_message_gives() -> None:
    """was b: "make the condition false ... change --attention-config, VLLM_ATTENTION_BACKEND"."""
    first = why("euroeval1488_attention_backend_env.txt")["matches"][0]
    assert (first["function"], first["fix"]) == (
        "AttentionConfig._set_from_env_if_set",
        "VLLM_ATTENTION_BACKEND is deprecated in the release that printed this; its message names the "
        "replacement: pass --attention-config.backend with the value VLLM_ATTENTION_BACKEND held, and unset "
        "VLLM_ATTENTION_BACKEND",
    )


@pytest.mark.parametrize(
    ("name", "function", "settings"),
    [
        (
            "sendnn851_reranker_batched_tokens.txt",
            "SchedulerConfig.verify_max_model_len",
            ["max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"],
        ),
        ("pr55693_nixl_kv_both.txt", "NixlBaseConnector.__init__", ["kv_transfer_config"]),
        (
            "pr27195_async_scheduling_ray.txt",
            "VllmConfig.__post_init__",
            ["distributed_executor_backend", "async_scheduling"],
        ),
    ],
)
def test_why_texts_found_first_seen(name: str, function: str, settings: list[str]) -> None:
    first = why(name)["matches"][0]
    assert (first["function"], [s["name"] for s in first["settings"]]) == (function, settings)


def test_openvino16_why_first_names_another_platforms_runner() -> None:
    """b: the message is the vllm-openvino plugin's; the index has it in vLLM's own runners of 0.6.4.post1-
    0.9.2, HPU's first, and no site's condition names the two flags."""
    names = [m["function"] for m in why("openvino16_chunked_prefix.txt")["matches"][:2]]
    assert names == ["HPUModelRunnerBase._prepare_prompt", "OpenVINOModelRunner._prepare_model_input"]


@pytest.mark.parametrize(
    "name",
    [
        "vllm36734_qwen35_prefix_caching.cmd",
        "qwen3emb24_reranker_task_score.cmd",
        "openvino16_chunked_prefix.cmd",
        "gpustack2259_tp3_heads.cmd",
    ],
)
def test_the_launches_missed_raise_no_alarm(name: str) -> None:
    """c: a Mamba hybrid's block size against --max-num-batched-tokens under prefix caching, a reranker
    served without its --hf-overrides, a plugin's refusal, a tensor-parallel size the model's heads refuse:
    each needs the model's config.json or the plugin's code, which a new user's machine does not have, and
    nothing wrong is said instead."""
    assert shown(check(name)) == []


def _generator() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_vllm_tokenizer_modes.py"
    spec = importlib.util.spec_from_file_location("gen_vllm_tokenizer_modes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Quoted from the wheels the data file was read from: vllm 0.12.0's vllm/tokenizers/hf.py:71 and
# registry.py (resolve_tokenizer_args, its slow and auto branches; the lines between left out), vllm
# 0.33.0's vllm/tokenizers/registry.py (_VLLM_TOKENIZERS, first entries) and vllm/config/model.py:1050.
# The class bodies are cut to ``pass``.
HF_0120 = '@TokenizerRegistry.register("hf")\nclass HfTokenizer(TokenizerLike):\n    pass\n'
RESOLVE_0120 = """
def resolve_tokenizer_args(tokenizer_name, *args, tokenizer_mode="auto", **kwargs):
    if tokenizer_mode == "slow":
        if kwargs.get("use_fast", False):
            raise ValueError("Cannot use the fast tokenizer in slow tokenizer mode.")
        tokenizer_mode = "hf"
        kwargs["use_fast"] = False
    if tokenizer_mode == "auto":
        tokenizer_mode = "hf"
"""
TABLE_0330 = """
_VLLM_TOKENIZERS = {
    "alpamayo2_super": ("alpamayo2_super", "Alpamayo2SuperTokenizer"),
    "cohere": ("hf", "CachedHfTokenizer"),
}
"""
VALIDATOR_0330 = """
class ModelConfig:
    @field_validator("tokenizer_mode", mode="after")
    def _lowercase_tokenizer_mode(cls, tokenizer_mode: str) -> str:
        return tokenizer_mode.lower()
"""


def test_the_generator_reads_registrations_translations_and_lowercasing() -> None:
    gen = _generator()
    assert gen.registered_calls(HF_0120) == {"hf"}
    assert gen.registry_table(TABLE_0330) == {"alpamayo2_super", "cohere"}
    assert gen.translated(RESOLVE_0120) == {"slow", "auto"}
    assert (gen.lowercases(VALIDATOR_0330), gen.lowercases(RESOLVE_0120)) == (True, False)
    # a comparison whose branch does not rebind the mode is not a translation (0.33.0's "hf" branch)
    assert gen.translated('if tokenizer_mode == "hf":\n    kwargs["mistral_format"] = False\n') == set()


def test_qwen3coder578_why_names_too_many_flags() -> None:
    """b: the warning's site is found, but its fix lists every flag its conditions read (the executor
    backend, the speculative config) and not --enable-prefix-caching, which turns the Mamba cache's align
    mode on: the conditions read mamba_cache_mode, which vLLM derives from prefix caching."""
    first = why("qwen3coder578_async_mamba_prefix.txt")["matches"][0]
    assert first["function"] == "VllmConfig.__post_init__"
    assert first["fix"] == (
        "make the condition false (self.cache_config.mamba_cache_mode != 'none'): change --mamba-cache-mode, "
        "--distributed-executor-backend, --async-scheduling, --speculative-config (its "
        "disable_padded_drafter_batch, method)"
    )


@pytest.mark.parametrize(("mode", "severity"), [("slow", "info"), ("deepseek-v32", "warning")])
def test_an_unnamed_release_makes_it_a_note_when_another_release_takes_the_word(
    mode: str, severity: str
) -> None:
    """Nothing names the release (analysed as 0.33.0): 'slow' is taken by 0.12.0-0.30.0, which the launch
    may run, so 0.33.0's refusal is a note; a word no release registers stays a warning."""
    report = run_cli(["check", "--format", "json", "-c", f"vllm serve m --tokenizer-mode {mode}"]).json
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "RS054"] == [
        ("RS054", severity)
    ]
