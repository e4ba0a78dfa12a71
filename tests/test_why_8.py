"""`argtrace why` on 25 error texts from public reports it was never tuned on (the 8th batch; texts and URLs
in tests/data/why8/, the first line of each file names the report), as a new user runs it, and the
mechanisms they led to (docs/real_cases.md "`why`, 8th batch", docs/why.md):

- reasons a function hands back instead of printing (``return False, "FA2 is only supported ..."``,
  ``invalid_reasons.append("head_size not supported")``) are indexed as sites of kind ``reason`` and
  explain the message that prints them (``because``);
- ``assert cond, RuntimeError("...")`` is indexed with the exception's text;
- argparse's "invalid choice" is placed on the flag, with its choices per bundled release;
- the same check of two platforms: the one the text names comes first;
- a partial match whose exception class the text contradicts needs twice the characters to be trusted.

Each case asserts the first site, the confidence and exact pieces of the text view; the cases ``why`` still
does not explain are strict ``xfail`` tests of what would, naming the missing mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from argtrace.commands.why import _attach_reasons, _platform_first, explain, render_why
from argtrace.commands.why_choice import invalid_choice_site
from argtrace.commands.why_confidence import assess
from argtrace.resolver.message_index import sites_of_source
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why8"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


def _url(name: str) -> str:
    return quoted_url(DATA / f"{name}.txt")


# --- the generator: reasons handed back, an assert's exception text ------------------------------------
def test_a_reason_returned_in_the_ok_reason_idiom_is_a_site() -> None:
    source = (
        "def _is_fa2_supported(device=None):\n"
        "    if torch.cuda.get_device_capability(device)[0] < 8:\n"
        '        return False, "FA2 is only supported on devices with compute capability >= 8"\n'
        "    return True, None\n"
    )
    assert sites_of_source(source, "x.py") == [
        {
            "f": "x.py",
            "l": 3,
            "fn": "_is_fa2_supported",
            "k": "reason",
            "x": "reason",
            "p": ["FA2 is only supported on devices with compute capability >= 8"],
            "c": ["torch.cuda.get_device_capability(device)[0] < 8"],
            "r": [],
        }
    ]


def test_a_reason_appended_to_a_list_of_reasons_is_a_site_and_an_ok_tuple_is_not() -> None:
    source = (
        "class B:\n"
        "    def validate(cls, head_size, cfg):\n"
        "        invalid_reasons = []\n"
        "        if not cls.supports_head_size(head_size):\n"
        '            invalid_reasons.append("head_size not supported")\n'
        "        if cfg.speculative_config.method == 'suffix':\n"
        '            unsupported.append(f"speculative method {cfg.speculative_config.method}")\n'
        '        names.append("not a reason list at all")\n'
        '        return True, "fine, nothing refused here"\n'
    )
    got = [(s["k"], s["p"], s["c"], s["r"]) for s in sites_of_source(source, "x.py")]
    assert got == [
        ("reason", ["head_size not supported"], ["not cls.supports_head_size(head_size)"], []),
        (
            "reason",
            ["speculative method ", ["cfg.speculative_config.method"]],
            ["cfg.speculative_config.method == 'suffix'"],
            ["cfg.speculative_config.method"],
        ),
    ]


def test_an_assert_whose_message_is_an_exception_keeps_the_exceptions_text() -> None:
    # vLLM 0.5-0.6's attention selector (vllm#9096)
    source = (
        "def get_attn_backend(backend):\n"
        "    if backend == _Backend.TORCH_SDPA:\n"
        '        assert is_cpu(), RuntimeError("Torch SDPA backend is only used for the CPU device.")\n'
    )
    (site,) = sites_of_source(source, "x.py")
    assert (site["k"], site["x"], site["p"], site["c"]) == (
        "assert",
        "AssertionError",
        ["Torch SDPA backend is only used for the CPU device."],
        ["backend == _Backend.TORCH_SDPA", "not (is_cpu())"],
    )


# --- matching: a reason under its message, the platform the text names ---------------------------------
def _group(function: str, message: str, kind: str, conditions: list[str], file: str = "x.py") -> dict:
    return {
        "framework": "vllm",
        "function": function,
        "file": file,
        "line": 1,
        "kind": kind,
        "message": message,
        "how": "full",
        "specificity": 51,
        "condition": conditions[-1],
        "conditions": conditions,
        "settings": [],
        "fix": "",
    }


def test_a_reason_goes_under_the_message_that_prints_it() -> None:
    host = _group(
        "CudaPlatformBase.get_attn_backend_cls",
        "Selected backend {selected_backend} is not valid for this configuration. Reason: {invalid_reasons}",
        "raise",
        ["selected_backend is not None", "invalid_reasons"],
    )
    reason = _group(
        "AttentionBackend.validate_configuration",
        "head_size not supported",
        "reason",
        ["not cls.supports_head_size(head_size)"],
    )
    device = _group(
        "_is_fa2_supported",
        "FA2 is only supported on devices with compute capability >= 8",
        "reason",
        ["torch.cuda.get_device_capability(device)[0] < 8"],
    )
    out = _attach_reasons([reason, host], "Reason: ['head_size not supported']")
    assert out == [host]
    assert [r["function"] for r in host["because"]] == ["AttentionBackend.validate_configuration"]
    assert host["fix"] == (
        "AttentionBackend.validate_configuration gives the reason 'head_size not supported' when not "
        "cls.supports_head_size(head_size); or make false: selected_backend is not None"
    )
    log = _group(
        "get_flash_attn_version",
        "Cannot use FA version {fa_version} is not supported due to "
        "{fa_version_unsupported_reason(fa_version)}",
        "log",
        ["not is_fa_version_supported(fa_version)"],
    )
    _attach_reasons([device, log], "due to FA2 is only supported on devices with compute capability >= 8")
    assert log["fix"] == (
        "_is_fa2_supported gives the reason 'FA2 is only supported on devices with compute capability >= 8' "
        "when torch.cuda.get_device_capability(device)[0] < 8 (the GPU's compute capability or platform: no "
        "launch setting changes that)"
    )


def test_a_reason_alone_stays_a_match_of_its_own() -> None:
    reason = _group("B.validate", "head_size not supported", "reason", ["not ok"])
    assert _attach_reasons([reason], "head_size not supported") == [reason]


def test_the_platform_the_text_names_comes_first_among_equal_sites() -> None:
    cuda = _group("CudaPlatformBase.get_attn_backend_cls", "m", "raise", ["c"], "vllm/platforms/cuda.py")
    rocm = _group("RocmPlatform.get_attn_backend_cls", "m", "raise", ["c"], "vllm/platforms/rocm.py")
    assert _platform_first([cuda, rocm], "AttentionBackendEnum.ROCM_ATTN is not valid") == [rocm, cuda]
    assert _platform_first([cuda, rocm], "AttentionBackendEnum.FLASHINFER is not valid") == [cuda, rocm]


def test_a_partial_match_of_another_exception_class_needs_twice_the_characters() -> None:
    first = {"how": "partial", "specificity": 30, "exception": "NotImplementedError", "kind": "raise"}
    got = assess("RuntimeError: MXFP4 quantization is not supported on gfx942", first)
    assert got == {
        "confidence": "weak",
        "reasons": [
            "the best site shares 30 literal characters with the text (fewer than 40)",
            "only some of its words occur in the text, in order",
            "the text names RuntimeError; the site raises NotImplementedError",
        ],
        "origin": None,
    }
    # the same site fully matched, or with the class the text names, stays strong
    assert assess("RuntimeError: x", {**first, "how": "full"})["confidence"] == "strong"
    assert assess("NotImplementedError: x", first)["confidence"] == "strong"


# --- argparse's "invalid choice" --------------------------------------------------------------------------
def test_an_invalid_choice_names_the_flag_its_choices_and_the_choice_spelled_like_it() -> None:
    site = invalid_choice_site(_text("sglangpr10835_mm_attention_backend_choice"))
    assert site is not None
    assert (site["framework"], site["function"], site["settings"]) == (
        "sglang",
        "ArgumentParser._check_value",
        [
            {
                "name": "mm_attention_backend",
                "flag": "--mm-attention-backend",
                "value": "triton",
                "named_in_text": True,
            }
        ],
    )
    assert site["fix"].startswith(
        "'triton' is not a choice of --mm-attention-backend in any bundled sglang release "
        "(0.4.6.post5-0.5.23); the choices printed are those of sglang 0.5.3.post3, 0.5.4.post3; "
        "the choice spelled like it: "
        "triton_attn; 'triton' is a choice of --attention-backend, --decode-attention-backend, "
        "--dsa-decode-backend and 11 more (other settings) in sglang 0.5.23"
    )


def test_an_invalid_choice_of_a_flag_no_bundled_release_has_is_no_site() -> None:
    assert (
        invalid_choice_site("error: argument --no-such-flag: invalid choice: 'x' (choose from 'a')") is None
    )


# --- the 25 texts -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    name: str  # tests/data/why8/<name>.txt
    grade: str  # the class after this batch's fixes (docs/real_cases.md)
    function: str | None  # the first site's function; None: no site
    confidence: str
    settings: tuple[str, ...] = ()
    because: tuple[str, ...] = ()  # the reason sites under the first site
    fix: str = ""  # the start of the first site's fix


CASES = [
    Case(
        "vllm14016_fa3_reason_2080ti",
        "a",
        "get_flash_attn_version",
        "strong",
        (),
        ("_is_fa3_supported",),
        "_is_fa3_supported gives the reason 'FA3 is only supported on devices with compute capability >= 8 "
        "excluding 8.6 and 8.9' when ",
    ),
    Case(
        "vllm15853_fa3_reason_t4",
        "a",
        "get_flash_attn_version",
        "strong",
        (),
        ("_is_fa3_supported",),
        "_is_fa3_supported gives the reason 'FA3 is only supported on devices with compute capability >= 8 "
        "excluding 8.6 and 8.9 and Blackwell archs (>=10)' when ",
    ),
    Case(
        "vllm13766_fa3_reason_v100",
        "a",
        "get_flash_attn_version",
        "strong",
        (),
        ("_is_fa3_supported",),
        "_is_fa3_supported gives the reason 'FA3 is only supported",
    ),
    Case(
        "vllmascend14628_free_memory_npu_wrapped",
        "a",
        "request_memory",
        "strong",
        ("gpu_memory_utilization",),
    ),
    Case(
        "vllmascend14631_local_world_size_wrapped",
        "a",  # was b; s20-vllm20: local_world_size is the parallel sizes over the nodes (vllm_config_fields)
        "XPUWorker.init_device",
        "strong",
        (
            "data_parallel_backend",
            "data_parallel_external_lb",
            "distributed_executor_backend",
            "data_parallel_size",
            "data_parallel_size_local",
            "nnodes",
            "pipeline_parallel_size",
            "prefill_context_parallel_size",
            "tensor_parallel_size",
        ),
    ),
    Case(
        "vllm40677_flashinfer_head_size_reason",
        "a",
        "CudaPlatformBase.get_attn_backend_cls",
        "strong",
        # the selector refused the backend --attention-backend picked (commands/why_backend.py, 9th batch)
        ("attention_backend",),
        ("AttentionBackend.validate_configuration",),
        "AttentionBackend.validate_configuration gives the reason 'head_size not supported' when not "
        "cls.supports_head_size(head_size); or make false: selected_backend is not None",
    ),
    Case(
        "flashattn2336_flashinfer_sinks_wrapped",
        "a",
        "CudaPlatformBase.get_attn_backend_cls",
        "strong",
        # the selector refused the backend --attention-backend picked (commands/why_backend.py, 9th batch)
        ("attention_backend",),
        ("AttentionBackend.validate_configuration",),
        "AttentionBackend.validate_configuration gives the reason 'attention sinks not supported' when "
        "has_sink and (not cls.supports_sink()); or make false: selected_backend is not None",
    ),
    Case(
        "strixhalo36_rocm_attn_sinks",
        "a",
        "RocmPlatform.get_attn_backend_cls",
        "strong",
        ("kv_cache_dtype",),
        ("AttentionBackend.validate_configuration",),
        "AttentionBackend.validate_configuration gives the reason 'attention sinks not supported' when ",
    ),
    Case(
        "vllm9096_torch_sdpa_cpu_only",
        "b",
        "_cached_get_attn_backend",
        "strong",
        (),
        (),
        "the condition not (current_platform.is_cpu()) is the GPU's or platform's: no launch setting changes "
        "it; make an enclosing one false: backend == _Backend.TORCH_SDPA",
    ),
    Case(
        "vllm414_heads_tp3",
        "a",
        "ModelConfig.verify_with_parallel_config",
        "strong",
        ("tensor_parallel_size",),
    ),
    Case(
        "sglang1533_memory_unbalanced",
        "a",
        "ModelRunner.init_torch_distributed",
        "strong",
        ("SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK", "device", "tp_size"),
    ),
    Case("vllm8189_fa_ampere_flashinfer_2080ti", "c", None, "none"),
    Case(
        "vllmpr20375_num_spec_tokens_missing",
        "a",
        "SpeculativeConfig._verify_args",
        "strong",
        ("speculative_config",),
    ),
    Case(
        "intelxpu7322_mrv2_ngram_xpu",
        "a",
        "VllmConfig._validate_v2_model_runner",
        "strong",
        (),
        ("VllmConfig._get_v2_model_runner_unsupported_features",),
        "VllmConfig._get_v2_model_runner_unsupported_features gives the reason 'ngram/ngram_gpu speculative "
        "decoding' when speculative_config.method in ('ngram', 'ngram_gpu'): change --speculative-config",
    ),
    Case(
        "sglang1841_chat_template_path",
        "a",
        "TemplateManager._load_explicit_chat_template",
        "strong",
        ("chat_template",),
    ),
    Case("sglang2431_no_chat_template", "b", "validate_request_params", "weak", ("chat_template",)),
    Case(
        "sglangpr10835_mm_attention_backend_choice",
        "a",
        "ArgumentParser._check_value",
        "strong",
        ("mm_attention_backend",),
        (),
        "'triton' is not a choice of --mm-attention-backend",
    ),
    Case(
        "sglang35743_sage_attn_layer_wrapped",
        "a",
        "_cached_get_attn_backend",
        "strong",
        ("attention_backend",),
    ),
    Case("vllm25811_flashinfer_trtllm_headdim", "c", None, "none"),
    Case(
        "vllm34641_mxfp4_gfx942",
        "c",
        "QuarkW4A4MXFp4MoE.get_online_fp8_to_mxfp4_weight_loader.online_fp8_to_mxfp4_moe_weight_loader",
        "weak",
        # the 8th batch's why_quant names --quantization for a quantization method's own check; the cause
        # is AITER's FP4 switch, not indexed (a weak candidate, still c)
        ("quantization",),
    ),
    Case(
        "xinference1715_max_model_len_address_prefix",
        "a",
        "_get_and_verify_max_len",
        "strong",
        ("max_model_len",),
    ),
    Case(
        "deepseekv2_83_kv_cache_rank0",
        "a",
        "raise_if_cache_size_invalid",
        "strong",
        ("max_model_len", "gpu_memory_utilization"),
    ),
    Case(
        "tpuinference223_kv_cache_v1",
        "a",
        "check_enough_kv_cache_memory",
        "strong",
        ("max_model_len", "gpu_memory_utilization"),
    ),
    Case(
        "qwen12_no_cache_blocks_v100",
        "a",
        "check_enough_kv_cache_memory",
        "strong",
        ("gpu_memory_utilization",),
    ),
    Case("strixhalo2_hip_oom", "b", None, "none"),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({_url(c.name) for c in CASES}) == 25
    assert [sum(c.grade == g for c in CASES) for g in "abcd"] == [
        19,
        3,
        3,
        0,
    ]  # vllm-ascend#14631: s20-vllm20


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: Case) -> None:
    section = explain(_text(case.name))
    first = (section["matches"] or [None])[0]
    assert section["confidence"] == case.confidence
    if case.function is None:
        assert first is None
        return
    assert first is not None
    assert first["function"] == case.function
    assert tuple(s["name"] for s in first["settings"]) == case.settings
    assert tuple(r["function"] for r in first.get("because", [])) == case.because
    assert first["fix"].startswith(case.fix)


def test_the_text_view_puts_the_reason_under_its_message() -> None:
    out = render_why(explain(_text("vllm40677_flashinfer_head_size_reason")))
    assert (
        "  because: head_size not supported (AttentionBackend.validate_configuration, "
        "vllm/v1/attention/backend.py:303; when not cls.supports_head_size(head_size))"
    ) in out.splitlines()


def test_a_reason_alone_is_its_site_vllm52181() -> None:
    # batch 6's vllm#52181 (tests/test_real_cases_6.py): the returned reason, without the log line
    first = explain("FA2 is only supported on devices with compute capability >= 8")["matches"][0]
    assert (first["function"], first["kind"], first["file"]) == (
        "_is_fa2_supported",
        "reason",
        "vllm/vllm_flash_attn/flash_attn_interface.py",
    )
    assert first["fix"] == (
        "the condition not current_platform.has_device_capability(80) is the GPU's or platform's: no launch "
        "setting changes it"
    )
    view = render_why(explain("FA2 is only supported on devices with compute capability >= 8"))
    assert view.startswith(
        "vllm: a reason returned in _is_fa2_supported (vllm/vllm_flash_attn/flash_attn_interface.py:58)\n"
    )


def test_the_origin_of_a_transformers_text_is_named() -> None:
    section = explain(_text("sglang2431_no_chat_template"))
    assert section["origin"] is not None
    assert (section["origin"]["basis"], section["origin"]["source"]) == (
        "wording",
        "https://github.com/sgl-project/sglang/issues/2431",
    )


def test_torchs_oom_without_frames_leaves_the_step_unknown() -> None:
    section = explain(_text("strixhalo2_hip_oom"))
    assert [(s["id"], s.get("step")) for s in section["signatures"]] == [("cuda-oom", "unknown")]
    assert section["origin"]["origin"] == "torch"


# --- what class a would need, for the cases not there (strict xfail: each names the missing mechanism) ----
MISSING = [
    (
        "vllm9096_torch_sdpa_cpu_only",
        "VLLM_ATTENTION_BACKEND",
        "`backend` is chosen in which_attn_to_use, which reads VLLM_ATTENTION_BACKEND: reads are traced one "
        "function deep",
    ),
    (
        "sglang2431_no_chat_template",
        "chat_template",
        "transformers' own message is not indexed (a wording names the origin, not the flag), so the first "
        "site stays a weak candidate",
    ),
    (
        "vllm8189_fa_ampere_flashinfer_2080ti",
        "attention_backend",
        "FlashAttention's check is compiled code (csrc): only .py files are indexed",
    ),
    (
        "vllm25811_flashinfer_trtllm_headdim",
        "attention_backend",
        "FlashInfer's check is C++: only .py files are indexed",
    ),
    (
        "vllm34641_mxfp4_gfx942",
        "VLLM_ROCM_USE_AITER_FP4BMM",
        "the text is AITER's (ROCm kernels), not indexed",
    ),
    (
        "strixhalo2_hip_oom",
        "gpu_memory_utilization",
        "torch's text without frames: the step, and so the fix, is in the server log",
    ),
]


@pytest.mark.parametrize(
    "name,setting",
    [pytest.param(n, s, id=n, marks=pytest.mark.xfail(strict=True, reason=why)) for n, s, why in MISSING],
)
def test_class_a_would_name_the_setting_behind_the_text(name: str, setting: str) -> None:
    section = explain(_text(name))
    first = (section["matches"] or [None])[0]
    assert section["confidence"] == "strong"
    assert first is not None and setting in [s["name"] for s in first["settings"]]
