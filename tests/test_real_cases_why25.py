"""`argtrace why` on a 23rd batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why25/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it (``--framework-version`` only where the reporter named
the release), and the mechanisms they led to (docs/real_cases.md "`why`, 23rd batch (why25)"):

- a partial match whose shared words sit amid other words of the text's sentence (a stock phrase such as "is
  not currently supported") is weak, however many characters it shares (``why_confidence.words_amid``);
- other programs' words: PyTorch's Inductor compiler, torchao's Float8 hardware check, torch._scaled_mm's
  row-wise kernel, Python's unpacking ValueError, transformers' tokenizer conversion (``FOREIGN_WORDINGS``);
- a ZeroDivisionError whose text gives a setting's field 0 or divides by it (``why_none.zero_divisor``);
- an AttributeError whose traceback's innermost frame is another package's code
  (``why_attribute.innermost_frame``);
- a traceback cut at a condition line of an indexed assert (``raise_lookup.asserted_at``).
"""

from __future__ import annotations

import copy
import functools
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_attribute import innermost_frame
from argtrace.commands.why_confidence import origin_of, words_amid
from argtrace.commands.why_none import zero_divisor
from argtrace.commands.why_tokenizer import add_tokenizer_class_cause, tokenizer_class_known_in
from argtrace.resolver.raise_lookup import asserted_at
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why25"

# the releases the reporters named (``--framework-version``); the others ran without it
VERSION = {
    "vllm33416_nvfp4_moe_backend_sm120": "0.15.0",
    "vllmpr33417_flashinfer_cutlass_sm_120": "0.15.0",
    "modellaunch138_deepseek_v4_transformers": "0.5.10.post1",
    "vllm29849_dsv32_default_chat_template_title": "0.11.2",
    "vllm39279_gemma4_chat_template_title": "0.19.0",
    "vllm30905_autotune_compile_sizes_title": "0.11.2",
    "sglang37183_glm5_next_title": "0.5.18",
    "verl1368_not_enough_values_title": "0.4.6.post1",
    "vllm16292_mistral_init_kwargs": "0.8.3",
}


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"), None, VERSION.get(name))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


_INDUCTOR = "PyTorch's Inductor compiler (torch.compile), run because the server compiles the model"
_WRAPS = "this reports Exception raised by the code it wraps"
_CHAT = "make the condition false (chat_template is None): change --chat-template"
_AUTOCONFIG = "transformers raises this in AutoConfig.from_pretrained when its own lookup fails"
_ATTRIBUTE = "Python's interpreter: code read the attribute"

CASES = [
    WhyCase(
        "ascendsglang522_mamba_radix_page_size",
        "b",
        "a",
        "run_scheduler_process",
        "strong",
        "sglang/srt/managers/scheduler.py:6372",
        (),
        _WRAPS,
    ),
    WhyCase(
        "freetoken277_nvfp4_rowwise_sm120",
        "d",
        "a",
        "OpenAIServingCompletion._create_completion",
        "weak",
        "vllm/entrypoints/openai/completion/serving.py:137",
        (),
        "make the condition false (request.stream and request.use_beam_search)",
        origin="PyTorch's scaled matrix multiply (torch._scaled_mm)",
    ),
    WhyCase(
        "llamafactory10310_tokenizersbackend",
        "b",
        "a",
        "AutoTokenizer.from_pretrained",
        "strong",
        "transformers/models/auto/tokenization_auto.py:1153",
        (),
        "TokenizersBackend is a tokenizer class the indexed transformers 5.23.0 know and 4.57.6 does not",
    ),
    WhyCase(
        "llmflux85_chat_template_resolution",
        "a",
        "a",
        "safe_apply_chat_template",
        "strong",
        "vllm/renderers/hf.py:885",
        ("chat_template",),
        _CHAT,
    ),
    WhyCase("lmcachevllm54_mistral_name_or_path", "b", "a", None, "none", origin=_ATTRIBUTE),
    WhyCase(
        "modellaunch138_deepseek_v4_transformers",
        "a",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:438",
        (),
        _AUTOCONFIG,
    ),
    WhyCase(
        "sglang26690_hiradix_dsv4",
        "b",
        "b",
        "HiRadixCache.__init__",
        "strong",
        "sglang/srt/mem_cache/hiradix_cache.py:98",
        (),
        "make the condition false (not (isinstance(self.kv_cache, MLATokenToKVPool)))",
    ),
    WhyCase(
        "sglang37183_glm5_next_title",
        "a",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:438",
        (),
        _AUTOCONFIG,
    ),
    WhyCase("sglangpr24972_hicache_swa_assert", "b", "b", None, "none"),
    WhyCase(
        "sglangpr37621_glm53_backend_tokenizer",
        "c",
        "b",
        None,
        "none",
        origin="transformers' tokenizer loading: the checkpoint has no tokenizer.json",
    ),
    WhyCase(
        "skyrl1575_parallelconfig_external_lb",
        "a",
        "a",
        "ParallelConfig._validate_parallel_config",
        "strong",
        "vllm/config/parallel.py:552",
        ("data_parallel_external_lb", "data_parallel_size", "VLLM_DP_SIZE"),
        "make the condition false (self.data_parallel_size <= 1 and self.data_parallel_external_lb): change "
        "--data-parallel-external-lb, --data-parallel-size",
        origin="pydantic_core._pydantic_core",
    ),
    WhyCase("torchtitan3669_inductor_out_variant", "c", "a", None, "none", origin=_INDUCTOR),
    WhyCase(
        "verl1368_not_enough_values_title",
        "c",
        "a",
        None,
        "none",
        origin="Python's interpreter: code unpacked a value into a fixed number of names",
    ),
    WhyCase(
        "vllm16292_mistral_init_kwargs",
        "b",
        "a",
        "InputProcessingContext.call_hf_processor",
        "strong",
        "vllm/inputs/registry.py:160",
        (),
        _WRAPS,
        origin=_ATTRIBUTE,
    ),
    WhyCase("vllm28982_cpu_inductor_scheduler_assert", "c", "a", None, "none", origin=_INDUCTOR),
    WhyCase(
        "vllm29849_dsv32_default_chat_template_title",
        "a",
        "a",
        "apply_hf_chat_template",
        "strong",
        "vllm/entrypoints/chat_utils.py:1604",
        ("chat_template",),
        "make the condition false (hf_chat_template is None): change --chat-template",
    ),
    WhyCase("vllm30905_autotune_compile_sizes_title", "c", "a", None, "none", origin=_INDUCTOR),
    WhyCase(
        "vllm33416_nvfp4_moe_backend_sm120",
        "d",
        "c",
        "RocmPlatform.get_attn_backend_cls",
        "weak",
        "vllm/platforms/rocm.py:261",
        ("block_size",),
        "make the condition false (selected_backend == AttentionBackendEnum.TRITON_MLA)",
    ),
    WhyCase(
        "vllm39279_gemma4_chat_template_title",
        "a",
        "a",
        "safe_apply_chat_template",
        "strong",
        "vllm/renderers/hf.py:477",
        ("chat_template",),
        _CHAT,
    ),
    WhyCase(
        "vllm49355_pp_async_mtp_shape",
        "b",
        "b",
        "GPUModelRunner._pp_broadcast_prev_sampled_token_ids",
        "strong",
        "vllm/v1/worker/gpu_model_runner.py:4534",
        (),
        "make the condition false (not (sampled_token_ids.dim() == 2",
    ),
    WhyCase("vllmascend8498_aclgraph_assert_title", "c", "c", None, "none"),
    WhyCase(
        "vllmmlx668_deepseek_v4_not_supported",
        "d",
        "c",
        "ServerArgs._handle_encoder_disaggregation",
        "weak",
        "sglang/srt/server_args.py:4146",
        ("encoder_only", "language_only"),
        "make the condition false ((self.encoder_only or self.language_only)",
    ),
    # mixed35: a partial match of an assertion is no longer offered for a text that says RuntimeError (the
    # ROCm AITER assertion came first); the next weak site is as wrong (class c either way)
    WhyCase(
        "vllmpr33417_flashinfer_cutlass_sm_120",
        "c",
        "c",
        "GPTQMarlinMoEMethod.select_gemm_impl",
        "weak",
        "vllm/model_executor/layers/quantization/gptq_marlin.py:834",
        ("quantization",),
        "make the condition false (self.quant_config.weight_bits == 8)",
    ),
    WhyCase(
        "vllmpr37033_torchao_float8_cc89",
        "d",
        "a",
        "Fp8BlockScaledMMLinearKernel.can_implement",
        "weak",
        "vllm/model_executor/kernels/linear/scaled_mm/BlockScaledMMLinearKernel.py:80",
        (),
        "make the condition false (act_quant_key.scale.static)",
        origin="torchao's hardware check: Float8 activation quantization needs a GPU of compute capability",
    ),
    WhyCase(
        "vllmpr44057_dcp_zero_division",
        "b",
        "a",
        None,
        "none",
        origin="Python's interpreter: a division by zero",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([6, 8, 7, 4], [17, 4, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        (
            "vllm: ",
            "sglang: ",
            "transformers: ",
            "the text comes from ",
            "no framework raise or log site",
            "traceback: ",
            "python: ",
        )
    )
    assert any(line.startswith(("  fix: ", "the text comes from ")) for line in screen)


# --- a stock phrase of another message ---------------------------------------------------------------------
def test_shared_words_amid_other_words_make_the_first_site_weak() -> None:
    reasons = _why("vllmpr37033_torchao_float8_cc89")["reasons"]
    assert reasons[0] == "the best site shares 40 literal characters with the text (fewer than 41)"
    assert reasons[-1] == (
        "the text holds the site's words 'activation quantization is' amid others: 'dynamic' before them "
        "where the site has 'group', 'only' after them where the site has 'supported'"
    )


def test_which_shared_words_are_amid_others() -> None:
    site = {"how": "partial", "message": "Streaming is not currently supported with beam search"}
    both = words_amid("RuntimeError: Rowwise scaling is not currently supported on your device", site)
    assert both is not None and both.both and both.run == "is not currently supported"
    # one side differs: a sign, not decisive (vllm#33416 against ROCm's "does not support block size")
    rocm = {"how": "partial", "message": "The selected backend, {name},does not support block size {size}."}
    one = words_amid("NvFp4 MoE backend 'X' does not support current device.", rocm)
    assert one is not None and not one.both and one.right == ("block", "current")
    # not: a full match, a copy ending in the run, a title going on after the message's full stop
    assert (
        words_amid("Streaming is not currently supported with beam search", {**site, "how": "full"}) is None
    )
    assert words_amid("ValueError: Streaming is not currently supported", site) is None
    arch = {"how": "partial", "message": "Model architectures {a} are not supported for now. Supported: {b}"}
    titled = "Model architectures ['X'] are not supported for now. vllm not loading with EAGLE"
    assert words_amid(titled, arch) is None


# --- other programs' words ---------------------------------------------------------------------------------
def test_other_programs_words() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    inductor = (
        "torch._inductor.exc.InductorError: LoweringException: x",
        'File "/usr/lib/python3.12/site-packages/torch/_inductor/graph.py", line 3, in run',
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    )
    assert all(said(t).startswith(_INDUCTOR) for t in inductor)
    assert said(
        "AssertionError: Float8 static activation quantization is only supported on CUDA>=8.9"
    ).startswith("torchao's hardware check")
    assert said("RuntimeError: Rowwise scaling is not currently supported on your device").startswith(
        "PyTorch's scaled matrix multiply"
    )
    assert said("ValueError: too many values to unpack (expected 2)").startswith("Python's interpreter: code")
    assert said("ValueError: Couldn't instantiate the backend tokenizer from one of:").startswith(
        "transformers' tokenizer loading"
    )
    # not: the words alone, nor an unpacking word without Python's count
    assert said("the inductor backend was slow") == ""
    assert said("not enough values to fill the batch") == ""


# --- a divisor the text names ------------------------------------------------------------------------------
def test_a_setting_given_zero_or_divided_by() -> None:
    found = _why("vllmpr44057_dcp_zero_division")["none"]
    assert found["flags"] == ["--decode-context-parallel-size"]
    assert (
        found["fix"] == "give --decode-context-parallel-size a value of at least 1 (the code divides by it)"
    )
    # not reports: a keyword, a divisor of the quoted code, and a name no flag has
    zero = zero_divisor("ZeroDivisionError: integer division or modulo by zero (tensor_parallel_size=0)")
    assert zero is not None and zero["flags"] == ["--tensor-parallel-size"]
    divided = zero_divisor(
        "ZeroDivisionError: division by zero\n    n = total // self.pipeline_parallel_size"
    )
    assert divided is not None and divided["flags"] == ["--pipeline-parallel-size"]
    other = zero_divisor("ZeroDivisionError: division by zero\n    n = total // self.num_local_shards")
    assert other is not None and "flags" not in other


# --- an AttributeError in another package's frame ----------------------------------------------------------
def test_the_innermost_frame_names_the_package() -> None:
    found = _why("lmcachevllm54_mistral_name_or_path")["attribute"]
    assert (
        "the traceback's innermost frame is lmcache_vllm's code (lmcache_vllm/vllm_injection.py:336"
        in (found["meaning"])
    )
    assert found["fix"].startswith("a lmcache_vllm release made for the installed server")
    assert innermost_frame('File "/x/lib/python3.12/site-packages/verl/workers/a.py", line 9, in f') == (
        "verl",
        "verl/workers/a.py:9, in f",
    )
    checkout = 'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 5, in run'
    assert innermost_frame(checkout) == ("sglang", "managers/scheduler.py:5, in run")
    assert innermost_frame("AttributeError: 'X' object has no attribute 'y'") is None


def test_a_tokenizer_class_a_tokenizer_mode_builds() -> None:
    found = _why("vllm16292_mistral_init_kwargs")["attribute"]
    assert (found["framework"], found["flag"], found["basis"]) == ("vllm", "--tokenizer-mode", "assumed")
    assert found["fix"].startswith("a launch without --tokenizer-mode mistral (auto) builds the Hugging Face")
    # not: the Hugging Face tokenizer's own class, a class no mode registers, and another package's frame
    assert "flag" not in (
        explain("AttributeError: 'HfTokenizer' object has no attribute 'x'", None, None)["attribute"] or {}
    )
    other = explain("AttributeError: 'QwenTokenizer' object has no attribute 'x'", None, None)["attribute"]
    assert "flag" not in other
    assert "flag" not in _why("lmcachevllm54_mistral_name_or_path")["attribute"]


# --- a traceback cut at an assert's condition line ---------------------------------------------------------
def test_a_traceback_cut_at_an_asserts_condition_line() -> None:
    trace = _why("ascendsglang522_mamba_radix_page_size")["traceback"]
    assert trace["meaning"].startswith(
        "the pasted traceback stops at `self.page_size == 1`, a line of the assert in SGLang's "
        "sglang/srt/mem_cache/mamba_radix_cache.py, in __init__: it fails with AssertionError: 'Page size "
        "must be 1 for MambaRadixCache v1, got {self.page_size}'"
    )
    assert [s["flag"] for s in trace["settings"]] == ["--page-size"]
    path = "/x/sglang/srt/mem_cache/mamba_radix_cache.py"
    site = asserted_at(path, "MambaRadixCache.__init__", "self.page_size == 1")
    assert site is not None and site.exception == "AssertionError" and "0.5.20" in site.releases
    # not: a raise statement, a line no assert's condition holds, a file outside the frameworks
    assert asserted_at(path, "MambaRadixCache.__init__", "raise ValueError(") is None
    assert asserted_at(path, "MambaRadixCache.__init__", "self.something_else == 2") is None
    assert (
        asserted_at("/x/other/mamba_radix_cache.py", "MambaRadixCache.__init__", "self.page_size == 1")
        is None
    )


# --- a tokenizer class this transformers does not have -----------------------------------------------------
def test_a_tokenizer_class_by_transformers_release() -> None:
    assert tokenizer_class_known_in("TokenizersBackend") == ["5.23.0"]
    assert tokenizer_class_known_in("LlamaTokenizerFast")[:1] == ["4.46.3"]

    def fixed(cls: str) -> str:
        groups = [{"message": "Tokenizer class {x} does not exist or is not currently imported.", "fix": "-"}]
        add_tokenizer_class_cause(
            groups, f"ValueError: Tokenizer class {cls} does not exist or is not currently imported."
        )
        return str(groups[0]["fix"])

    assert fixed("MyOwnTokenizer").startswith("no indexed transformers (4.46.3-5.23.0) maps a model type to")
    assert fixed("LlamaTokenizerFast") == "-"  # every indexed release has it: nothing said
    groups = [{"message": "another message", "fix": "-"}]
    add_tokenizer_class_cause(
        groups, "Tokenizer class TokenizersBackend does not exist or is not currently imported"
    )
    assert groups[0]["fix"] == "-"


def test_the_generator_reads_the_tokenizer_table_of_both_layouts() -> None:
    path = Path(__file__).parents[1] / "scripts" / "gen_model_types.py"
    spec = importlib.util.spec_from_file_location("gen_model_types", path)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    four = 'TOKENIZER_MAPPING_NAMES = OrderedDict([("llama", ("LlamaTokenizer", "LlamaTokenizerFast" if x '
    four += "else None))])"
    assert gen.tokenizer_classes(four) == ["LlamaTokenizer", "LlamaTokenizerFast"]
    five = 'TOKENIZER_MAPPING_NAMES = OrderedDict[str, str | None]([("aria", "TokenizersBackend" if y '
    five += "else None)])\n"
    five += 'TOKENIZER_MAPPING_NAMES[model_type] = "TokenizersBackend"\nOTHER = {"x": "BertTokenizer"}'
    assert gen.tokenizer_classes(five) == ["TokenizersBackend"]
