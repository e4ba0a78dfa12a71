"""`argtrace why` on a 15th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/why_15/, the first line of each file names the report and the fix its thread
settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md "`why`, 15th batch",
docs/why.md "Python's AttributeError"):

- Python's own AttributeError (``'X' object has no attribute 'y'``) is the interpreter's: a framework site
  printing only Python's words (a ``__getattr__`` whose class is a placeholder) is kept only for its own class
  (eight texts had taken vLLM's ``BaseLayerWithLoRA.__getattr__`` as strong); on the server's argument
  object (``ServerArgs``, ``EngineArgs``, argparse's ``Namespace``) the attribute is tied through the release
  schemas to the flag that sets it and the releases that have it (``attribute``, a JSON key added);
- the CUDA runtime's "no kernel image is available" and "invalid device ordinal" are its own words;
- vLLM's start-up free-memory check: the figures its message states give the change;
- a flag resolved for argparse's "unrecognized arguments" is the exact flag before an abbreviation.

Each case asserts the first site (function and file:line), the confidence, the settings, the start of the fix,
the origin and the attribute's flag; the cases ``why`` still does not explain are strict ``xfail`` tests
naming the missing mechanism.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_attribute import attribute_error, keep_class_sites
from argtrace.commands.why_confidence import origin_of
from argtrace.commands.why_oom import startup_fix, startup_free
from argtrace.frameworks.feature_pairs import resolve_flag
from tests.batches import WhyCase, assert_why_gives, batch_grades, recorded_why
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_15"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


def _why(name: str) -> dict[str, Any]:
    return recorded_why(DATA / f"{name}.txt")


_MEM = ("request_memory", "strong", "vllm/v1/worker/utils.py:762", ("gpu_memory_utilization",))
_BF16 = ("_check_if_gpu_supports_dtype", "strong", "vllm/worker/worker.py:525", ("dtype",))
_NO_KERNEL = (
    "the CUDA runtime: the installed build has no kernel for this GPU's architecture; install a build"
)
_PYTHON = "Python's interpreter: code read the attribute "

CASES = [
    WhyCase(
        "club3090_4_free_memory_097",
        "a",
        "a",
        *_MEM,
        "--gpu-memory-utilization 0.97 asks 23.28 GiB of the device's 24.00 GiB, of which 22.76 GiB were "
        "free "
        "at start-up: lower --gpu-memory-utilization to at most 0.94",
    ),
    WhyCase("fastchat3704_asyncllm_engine", "d", "b", None, "none", origin=_PYTHON + "engine"),
    WhyCase("fastvlm28_llavaconfig_vision_config", "d", "b", None, "none", origin="transformers"),
    WhyCase("gpustack1774_bf16_t4_shell", "a", "a", *_BF16, "make the condition false"),
    WhyCase(
        "gpustack3326_flash_attn_sm90",
        "b",
        "b",
        "flash_attn_with_kvcache",
        "strong",
        "sglang/kernels/ops/attention/flash_attention_v3.py:138",
    ),
    WhyCase(
        "gpustack4769_16_div_6_sglang",
        "b",
        "b",
        "ensure_divisibility",
        "strong",
        "sglang/srt/distributed/utils.py:70",
    ),
    WhyCase(
        "habana2190_namespace_h11_max",
        "d",
        "a",
        None,
        "none",
        origin=_PYTHON + "h11_max_incomplete_event_size",
        flag="--h11-max-incomplete-event-size",
    ),
    WhyCase("kserve5399_serving_embedding_http", "d", "b", None, "none", origin=_PYTHON + "create_embedding"),
    WhyCase("orpheus74_bf16_t4", "a", "a", *_BF16, "make the condition false"),
    WhyCase(
        "recipes653_max_seq_len_1m",
        "a",
        "a",
        "_check_enough_kv_cache_memory",
        "strong",
        "vllm/v1/core/kv_cache_planning.py:77",
        ("max_model_len", "gpu_memory_utilization"),
        "make the condition false (estimated_max_len > 0): change --max-model-len",
    ),
    WhyCase("sglang10381_kvargs_kv_head_num", "d", "b", None, "none", origin=_PYTHON + "kv_head_num"),
    WhyCase(
        "sglang13352_eagle3_v2_sizes",
        "c",
        "c",
        "CompilerManager.initialize_cache.check_type",
        "weak",
        "vllm/compilation/backends.py:211",
    ),
    WhyCase(
        "sglang24224_t4_no_kernel_image",
        "b",
        "a",
        "check_cuda_result",
        "weak",
        "sglang/srt/utils/common.py:1321",
        origin=_NO_KERNEL,
    ),
    WhyCase("sglang36352_ngram_torch_native_shape", "d", "c", None, "none", origin=_PYTHON + "shape"),
    WhyCase(
        "sglang6072_invalid_device_ordinal",
        "c",
        "a",
        None,
        "none",
        origin="the CUDA runtime: a process selected a GPU index this node does not expose (more ranks per "
        "node than visible GPUs: the tensor/pipeline parallel size without --nnodes",
    ),
    WhyCase(
        "sglang7249_rmsnorm_no_kernel_5090",
        "d",
        "a",
        "get_memset_tbps.fn",
        "weak",
        "vllm/third_party/triton_kernels/roofline.py:128",
        origin=_NO_KERNEL,
    ),
    WhyCase(
        "slime1741_serverargs_encoder_only",
        "d",
        "a",
        None,
        "none",
        origin=_PYTHON + "encoder_only",
        flag="--encoder-only",
    ),
    WhyCase("verl2594_bf16_v100", "a", "a", *_BF16, "make the condition false"),
    WhyCase(
        "vllm19906_rtx5080_no_kernel_title",
        "d",
        "a",
        "check_cuda_result",
        "weak",
        "sglang/srt/utils/common.py:1321",
        origin=_NO_KERNEL,
    ),
    WhyCase(
        "vllm20241_decoder_prompt_12288",
        "b",
        "b",
        "InputProcessor._validate_prompt_len",
        "strong",
        "vllm/v1/engine/input_processor.py:588",
        ("max_model_len",),
    ),
    WhyCase(
        "vllm24004_glm45v_12_div_8",
        "b",
        "b",
        "WorkerProc.worker_main",
        "strong",
        "vllm/v1/executor/multiproc_executor.py:1057",
    ),
    WhyCase(
        "vllm33297_free_memory_ansi_ci",
        "b",
        "a",
        *_MEM,
        "--gpu-memory-utilization 0.9 asks 19.84 GiB of the device's 22.05 GiB, of which 1.54 GiB were free "
        "at "
        "start-up: other processes held 20.51 GiB; stop them or give the server another GPU",
    ),
    WhyCase("vllm33508_qwen3vlmoe_vocab_size", "d", "b", None, "none", origin=_PYTHON + "vocab_size"),
    WhyCase(
        "vllmgaudi728_device_hpu",
        "a",
        "a",
        "FlexibleArgumentParser.parse_args",
        "strong",
        "vllm/entrypoints/common/cli_args.py:431",
        ("device",),
        "--device is taken by vllm 0.6.6.post1-0.9.2: the release that refused it is not one of them",
    ),
    WhyCase(
        "vllmomni276_free_memory_other",
        "b",
        "a",
        *_MEM,
        "--gpu-memory-utilization 0.6 asks 47.59 GiB of the device's 79.32 GiB, of which 0.49 GiB were free "
        "at "
        "start-up: other processes held 78.83 GiB; stop them or give the server another GPU",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([6, 7, 2, 10], [14, 9, 2, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case, flag_from="attribute")


# --- Python's AttributeError ------------------------------------------------------------------------------
def test_a_server_args_field_some_releases_lack_is_tied_to_its_flag() -> None:
    section = _why("slime1741_serverargs_encoder_only")
    found = section["attribute"]
    assert (found["class"], found["attribute"], found["framework"], found["flag"], found["basis"]) == (
        "ServerArgs",
        "encoder_only",
        "sglang",
        "--encoder-only",
        "schema",
    )
    assert (found["releases"][0], found["releases"][-1], found["absent_in"][-1]) == (
        "0.5.7",
        "0.5.23",
        "0.5.6.post2",
    )
    assert found["meaning"] == (
        "Python's own AttributeError: the ServerArgs object has no attribute 'encoder_only'; SGLang "
        "0.5.7-0.5.23 "
        "set ServerArgs.encoder_only from --encoder-only, 0.4.0.post2-0.5.6.post2 have no such field: the "
        "code "
        "reading it was written for a release that has it, and the installed SGLang is one without it"
    )
    assert found["fix"].startswith("install an SGLang release that has --encoder-only (0.5.7-0.5.23), or run")
    view = render_why(section).splitlines()
    assert view[2].startswith("python: Python's own AttributeError: the ServerArgs object has no attribute")


def test_a_namespace_lacking_a_parser_dest_is_a_parser_of_another_release() -> None:
    found = attribute_error(_text("habana2190_namespace_h11_max"))
    assert found is not None
    assert found["meaning"] == (
        "Python's own AttributeError: the Namespace object has no attribute 'h11_max_incomplete_event_size'; "
        "vLLM 0.10.2-0.33.0's parsers define --h11-max-incomplete-event-size (dest "
        "h11_max_incomplete_event_size), "
        "0.6.6.post1-0.9.2's do not: the Namespace came from a parser without "
        "--h11-max-incomplete-event-size "
        "while the code reading args.h11_max_incomplete_event_size is of a release that has it (a parser and "
        "server code of different releases)"
    )


def test_an_engine_args_field_of_old_releases_and_a_name_no_release_has() -> None:
    # not reports: code written for vLLM 0.8 reading EngineArgs.device on a newer vLLM; a fork's field
    old = attribute_error("AttributeError: 'EngineArgs' object has no attribute 'device'")
    assert old is not None and (old["framework"], old["flag"]) == ("vllm", "--device")
    assert old["meaning"] == (
        "Python's own AttributeError: the EngineArgs object has no attribute 'device'; vLLM "
        "0.6.6.post1-0.8.5.post1 set EngineArgs.device from --device, 0.9.2-0.33.0 have no such field: the "
        "code reading it was written for a release that has it, and the installed vLLM is one without it; "
        "read from `vllm serve`'s parser, which also holds AsyncEngineArgs' own fields: whether EngineArgs "
        "itself has it, the schemas do not say"
    )
    none = attribute_error("AttributeError: 'ServerArgs' object has no attribute 'enable_warp_drive'")
    assert none is not None and "flag" not in none
    assert none["meaning"].startswith(
        "Python's own AttributeError: the ServerArgs object has no attribute 'enable_warp_drive'; no bundled "
        "release's ServerArgs has 'enable_warp_drive' (SGLang 0.4.0.post2-0.5.23)"
    )


def test_a_getattr_site_is_kept_for_its_own_class_only() -> None:
    groups: list[dict[str, Any]] = [
        {
            "function": "BaseLayerWithLoRA.__getattr__",
            "message": "{type(self).__name__} object has no attribute {name}",
        },
        {
            "function": "Req.__getattr__",
            "message": "'{type(self).__name__}' object has no attribute '{name}'",
        },
        {"function": "load", "message": "the checkpoint object has no attribute {name} in its index"},
    ]
    assert [g["function"] for g in keep_class_sites(groups, "Req")] == ["Req.__getattr__", "load"]
    assert [g["function"] for g in keep_class_sites(groups, "AsyncLLM")] == ["load"]
    # the class the site belongs to, named by the text: its own __getattr__ stays first
    section = explain("AttributeError: 'BaseLayerWithLoRA' object has no attribute 'lora_a_stacked'")
    assert section["matches"][0]["function"] == "BaseLayerWithLoRA.__getattr__"


def test_a_none_value_names_no_setting() -> None:
    found = attribute_error("AttributeError: 'NoneType' object has no attribute 'shape'")
    assert found is not None and "flag" not in found
    assert found["meaning"].startswith(
        "Python's own AttributeError: a value the code expected to be an object was None when it read .shape"
    )


# --- the CUDA runtime's words; vLLM's start-up free-memory figures; the exact flag first -----------------
def test_the_cuda_runtime_s_own_errors_name_it() -> None:
    for text in (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "torch.AcceleratorError: CUDA error: invalid device ordinal",
    ):
        found = origin_of(text)
        assert found is not None and found["origin"].startswith("the CUDA runtime: ")
        assert found["basis"] == "wording"


def test_the_free_memory_figures_give_the_change() -> None:
    # not a report: vLLM 0.9's form (no device name), a desktop holding 3 of 47.38 GiB
    text = (
        "ValueError: Free memory on device (44.38/47.38 GiB) on startup is less than desired GPU memory "
        "utilization (0.95, 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
        "processes."
    )
    found = startup_free(text)
    assert found is not None and (found.free, found.total, found.utilization, found.requested) == (
        44.38,
        47.38,
        0.95,
        45.01,
    )
    assert startup_fix(found) == (
        "--gpu-memory-utilization 0.95 asks 45.01 GiB of the device's 47.38 GiB, of which 44.38 GiB were "
        "free at "
        "start-up: lower --gpu-memory-utilization to at most 0.93, or free the 3.00 GiB other processes "
        "(and the "
        "CUDA context) held"
    )


def test_a_refused_flag_is_its_exact_spelling_before_an_abbreviation() -> None:
    # vLLM 0.24-0.30 take --device only as an abbreviation of --device-ids; 0.6.6.post1-0.9.2 have --device
    found = resolve_flag("vllm", "--device")
    assert found is not None and found[:2] == ("device", "--device")
    lora = resolve_flag("sglang", "--lora-path")
    assert lora is not None and lora[:2] == ("lora_paths", "--lora-paths")


# --- what class a would need, for the cases not there (strict xfail: each names the missing mechanism) ----
MISSING = [
    (
        "fastchat3704_asyncllm_engine",
        lambda s, first: "AsyncLLM is vLLM's" in s["attribute"]["meaning"],
        "AsyncLLM is vLLM's class: which package defines a class the text names is not looked up (the "
        "message "
        "index knows functions by class, but is read by words)",
    ),
    (
        "fastvlm28_llavaconfig_vision_config",
        lambda s, first: "checkpoint" in s["attribute"]["fix"],
        "a transformers config class lacking a field means the checkpoint's layout is not what the "
        "architecture "
        "expects; not said",
    ),
    (
        "kserve5399_serving_embedding_http",
        lambda s, first: "AsyncLLM is vLLM's" in s["attribute"]["meaning"],
        "ServingEmbedding is vLLM's class: the package defining a named class is not looked up",
    ),
    (
        "sglang10381_kvargs_kv_head_num",
        lambda s, first: "SGLang" in s["attribute"]["meaning"],
        "KVArgs is SGLang's (disaggregation) class: the package defining a named class is not looked up",
    ),
    (
        "vllm33508_qwen3vlmoe_vocab_size",
        lambda s, first: "transformers release" in s["attribute"]["meaning"],
        "Qwen3VLMoeConfig is transformers' class: which transformers release moved vocab_size is not known",
    ),
    (
        "gpustack3326_flash_attn_sm90",
        lambda s, first: "attention_backend" in [x["name"] for x in first["settings"]],
        "FA3's check in sglang/kernels/ops/attention/ (not layers/attention/) gets no --attention-backend",
    ),
    (
        "gpustack4769_16_div_6_sglang",
        lambda s, first: "tp_size" in [x["name"] for x in first["settings"]],
        "ensure_divisibility's operands are parameters; their callers' tensor-parallel size is not traced",
    ),
    (
        "vllm24004_glm45v_12_div_8",
        lambda s, first: first["function"] == "ensure_divisibility",
        "'WorkerProc failed to start.' (a consequence, 23 characters) ranks above the traceback's last "
        "exception line, the AssertionError ensure_divisibility raises (16 characters)",
    ),
    (
        "vllm20241_decoder_prompt_12288",
        lambda s, first: "0.9.2" in first["fix"],
        "vLLM 0.9.1 took the tokenizer's model_max_length over --max-model-len (fixed in 0.9.2): a "
        "release's bug "
        "is not known to the index",
    ),
    (
        "sglang13352_eagle3_v2_sizes",
        lambda s, first: first is not None and first["framework"] == "sglang",
        "a tensor size mismatch in the draft model; the cause (SGLANG_ENABLE_SPEC_V2 with topk > 1) is not "
        "in "
        "the text",
    ),
    (
        "sglang36352_ngram_torch_native_shape",
        lambda s, first: first is not None,
        "a None read during warmup; the cause (NGRAM with torch_native) is not in the text",
    ),
]


@pytest.mark.parametrize(
    "name,check",
    [pytest.param(n, c, id=n, marks=pytest.mark.xfail(strict=True, reason=why)) for n, c, why in MISSING],
)
def test_class_a_would_name_the_cause(name: str, check: Any) -> None:
    section = _why(name)
    first = (section["matches"] or [None])[0]
    assert check(section, first)


def test_every_case_not_in_class_a_names_its_missing_mechanism() -> None:
    assert sorted(n for n, _, _ in MISSING) == sorted(c.name for c in CASES if c.grade != "a")
