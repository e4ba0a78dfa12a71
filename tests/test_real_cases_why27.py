"""`argtrace why` on a 25th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why27/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md
"`why`, 25th batch (why27)"):

- a handler of a failed lookup by name (``except KeyError``) whose message prints the name is the refusal of
  that value, not a report of another error (``why_fixes.key_handler_fix``): vLLM's attention backend registry
  no longer goes below SGLang's short "Unknown attention backend: {backend}";
- a traceback whose innermost frame is in a source checkout of another package (``.../slime/slime/...``) comes
  from that package (``why_confidence.checkout_package``);
- PyTorch's shape errors in speculative decoding's code, differing in the features' dimension, name the
  target's and the draft's hidden sizes (``why_shape``);
- a KV-cache refusal whose available memory is a whole number of GiB was sized directly
  (--kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE), not by --gpu-memory-utilization (``why_oom``);
- an assert no server argument reaches is an invariant of the release's own code: with settings it accepts,
  its failing is the release's bug (``why_traceback._INVARIANT``);
- other programs' words: a ROCm kernel's "requires gfxA ..., got gfxB" (aiter), PyTorch's Dynamo, Python's
  NameError (``FOREIGN_WORDINGS``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_confidence import checkout_package, origin_of
from argtrace.commands.why_fixes import key_handler_fix
from argtrace.commands.why_oom import add_kv_size_note
from argtrace.commands.why_shape import origin_of_shape
from argtrace.commands.why_traceback import explain_traceback
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why27"


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


CASES = [
    WhyCase(
        "aiter4831_mla_gluon_gfx942",
        "c",
        "a",
        None,
        "none",
        origin="a ROCm kernel built for the AMD architecture it names only, not this G",
    ),
    WhyCase(
        "llamafactory8544_launch_server_cmd",
        "c",
        "a",
        "MiniMaxH3DiTModel._psp_field",
        "weak",
        "sglang/multimodal_gen/runtime/models/dits/minimax_h3.py:2555",
        (),
        "make the condition false (value is None)",
        origin="Python's interpreter: code used a name nothing defined (NameError), of",
    ),
    WhyCase(
        "lmeval2988_lora_rank_256",
        "a",
        "a",
        "WorkerLoRAManager._load_adapter",
        "strong",
        "vllm/lora/worker_manager.py:121",
        ("max_lora_rank",),
        "make the condition false (lora.rank > self.lora_config.max_lora_rank): change --max-lora-r",
    ),
    WhyCase(
        "sglang10951_libnvrtc",
        "a",
        "a",
        None,
        "none",
        origin="the dynamic loader: a shared library the packages need is missing",
    ),
    WhyCase(
        "sglang12007_mamba_lru_sanity",
        "b",
        "b",
        "LRUList.sanity_check",
        "strong",
        "sglang/srt/mem_cache/mamba_radix_cache.py:295",
        (),
        "make the condition false (not (x == x_lru))",
    ),
    WhyCase(
        "sglang24215_standalone_hidden_size",
        "c",
        "a",
        "CompilerManager.initialize_cache.check_type",
        "weak",
        "vllm/compilation/backends.py:211",
        (),
        "make the condition false (not isinstance(value, ty))",
        origin="PyTorch's shape check in speculative decoding's code (speculative/eagl",
    ),
    WhyCase(
        "sglang34972_hicache_hugepages",
        "b",
        "b",
        "HostKVCache._allocate_host_buffer",
        "strong",
        "sglang/srt/mem_cache/pool_host/base.py:252",
        ("page_size",),
        "make the condition false (requested_bytes > available_bytes): change --page-size",
    ),
    WhyCase(
        "sglang6342_capture_current_seed",
        "c",
        "a",
        "_broadcast_indexer_topk_from_rank0_impl",
        "weak",
        "sglang/srt/layers/attention/dsa/dsa_indexer.py:160",
        ("SGLANG_DSA_TOPK_BROADCAST",),
        "make the condition false (group.pynccl_comm is None): change SGLANG_DSA_TOPK_BROADCAST",
        origin="PyTorch's Dynamo (torch.compile's tracer), run because the server comp",
    ),
    WhyCase(
        "sglang8126_head_dim_80_title",
        "c",
        "c",
        "CustomSpecAlgo.create_worker",
        "weak",
        "sglang/srt/speculative/spec_registry.py:138",
        ("disable_overlap_schedule",),
        "make the condition false (not cfg.disable_overlap_schedule and (not self.supports_overlap)",
    ),
    WhyCase(
        "sglang9706_custom_allreduce_invalid_argument",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "sglangpr36005_mamba_force_track_h",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "sglangpr8102_hicache_reserve",
        "b",
        "b",
        "HostKVCache._allocate_host_buffer",
        "strong",
        "sglang/srt/mem_cache/pool_host/base.py:252",
        ("page_size",),
        "make the condition false (requested_bytes > available_bytes): change --page-size",
    ),
    WhyCase(
        "slime1909_routed_experts",
        "c",
        "a",
        None,
        "none",
        origin="slime",
    ),
    WhyCase(
        "vllm12901_spec_decode_v1",
        "a",
        "a",
        "RocmPlatform.check_and_update_config",
        "strong",
        "vllm/platforms/rocm.py:183",
        ("VLLM_USE_V1", "worker_cls", "num_scheduler_steps", "speculative_config"),
        "make the condition false (envs.VLLM_USE_V1): change VLLM_USE_V1, --speculative-config",
    ),
    WhyCase(
        "vllm15617_sampler_warmup_oom",
        "a",
        "a",
        "GPUModelRunner._dummy_sampler_run",
        "strong",
        "vllm/v1/worker/gpu_model_runner.py:5929",
        ("max_num_seqs", "gpu_memory_utilization"),
        "make the condition false ('out of memory' in str(e)): change --max-num-seqs, --gpu-memory-",
    ),
    WhyCase(
        "vllm16738_request_level_backend",
        "b",
        "b",
        "SamplingParams._validate_structured_outputs",
        "weak",
        "vllm/sampling_params.py:1257",
        ("structured_outputs_config",),
        "make the condition false (backend != _backend and (not (backend == 'auto' and self.structu",
    ),
    WhyCase(
        "vllm20013_coord_socket",
        "b",
        "a",
        None,
        "none",
    ),
    WhyCase(
        "vllm29233_cpu_kvcache_space",
        "b",
        "a",
        "check_enough_kv_cache_memory",
        "strong",
        "vllm/v1/core/kv_cache_utils.py:707",
        ("max_model_len", "gpu_memory_utilization"),
        "make the condition false (estimated_max_len > 0): change --max-model-len; the available KV cache "
        "memory (4.00 GiB) is a whole number of GiB",
    ),
    WhyCase(
        "vllm33685_step3p5_pp_title",
        "c",
        "c",
        "VllmConfig.__post_init__",
        "weak",
        "vllm/config/vllm.py:1887",
        ("attention_config", "pipeline_parallel_size"),
        "make the condition false (self.parallel_config.pipeline_parallel_size > 1): change --atten",
    ),
    WhyCase(
        "vllmascend4197_unknown_backend_ascend",
        "d",
        "b",
        "_AttentionBackendEnumMeta.__getitem__",
        "strong",
        "vllm/v1/attention/backends/registry.py:28",
        ("attention_backend",),
        "_AttentionBackendEnumMeta.__getitem__ raises this when the name it looks up is not one it ",
    ),
    WhyCase(
        "vllmascend7365_draft_model_tensor_size",
        "b",
        "a",
        None,
        "none",
        origin="PyTorch's shape check in speculative decoding's code (vllm_ascend/spec",
    ),
    WhyCase(
        "vllmpr12755_num_spec_tokens_no_model",
        "a",
        "a",
        "SpeculativeConfig.maybe_create_spec_config",
        "strong",
        "vllm/config.py:1801",
        ("num_speculative_tokens", "speculative_model", "model"),
        "make the condition false (not (target_model_config.hf_text_config.model_type == 'deepseek_",
    ),
    WhyCase(
        "vllmpr19426_outlines_v1_fallback",
        "a",
        "a",
        "_raise_or_fallback",
        "strong",
        "vllm/engine/arg_utils.py:1737",
        ("guided_decoding_backend",),
        "vllm 0.8.5.post1-0.9.2 send the launch back to the V0 engine for '--guided-decoding-backen",
    ),
    WhyCase(
        "vllmpr22217_attention_backend_env_v0",
        "a",
        "a",
        "_raise_or_fallback",
        "strong",
        "vllm/engine/arg_utils.py:1737",
        ("VLLM_ATTENTION_BACKEND",),
        "vllm 0.8.5.post1-0.11.0 send the launch back to the V0 engine for 'VLLM_ATTENTION_BACKEND=",
    ),
    WhyCase(
        "vllmpr55914_megamoe_requires_ep",
        "b",
        "b",
        "DeepseekV4MoE.__init__",
        "strong",
        "vllm/models/deepseek_v4/xpu/model.py:605",
        ("enable_expert_parallel", "moe_backend"),
        "make the condition false (self.use_native_mega_moe and (not vllm_config.parallel_config.en",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([7, 8, 9, 1], [15, 6, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        ("vllm: ", "sglang: ", "no framework raise or log site", "the text comes from")
    )
    assert any(line.startswith(("  fix: ", "the text comes from ")) for line in screen)


# --- a lookup by name that fails: the refusal of the name -------------------------------------------------
def test_a_failed_lookup_by_name_refuses_the_name() -> None:
    site = {
        "function": "_AttentionBackendEnumMeta.__getitem__",
        "conditions": ["except KeyError"],
        "message": "Unknown attention backend: '{name}'. Valid options are: {valid_backends}",
    }
    fix = key_handler_fix(site, ": change --attention-backend")
    assert fix == (
        "_AttentionBackendEnumMeta.__getitem__ raises this when the name it looks up is not one it knows "
        "(the KeyError of its own lookup): its message lists the names it knows; the value it names is "
        "refused, not another error reported: change --attention-backend"
    )
    # vLLM's registry comes before SGLang's short "Unknown attention backend: {backend}" (23 characters)
    first = _why("vllmascend4197_unknown_backend_ascend")["matches"][0]
    assert (first["framework"], first["file"]) == ("vllm", "vllm/v1/attention/backends/registry.py")
    # not: a message printing the caught error, another exception, a message with no placeholder
    assert key_handler_fix({**site, "message": "lookup of {name} failed: {e}"}, "") is None
    assert key_handler_fix({**site, "conditions": ["except ImportError"]}, "") is None
    assert key_handler_fix({**site, "message": "Unknown attention backend."}, "") is None


# --- a source checkout of another package ------------------------------------------------------------------
def test_a_frame_in_a_checkout_of_another_package() -> None:
    def frame(path: str) -> str:
        return f'  File "{path}", line 9, in f\n    raise ValueError(x)\nValueError: x'

    assert checkout_package(frame("/root/work/slime/slime/backends/megatron_utils/actor.py")) == "slime"
    assert checkout_package(frame("/home/u/FastChat/fastchat/serve/model_worker.py")) == "fastchat"
    assert origin_of(frame("/w/slime/slime/utils/x.py")) == {
        "origin": "slime",
        "basis": "frames",
        "evidence": "innermost frame in a checkout of slime/",
    }
    # not: a checkout of SGLang or vLLM, a script of one's own, a path with no repeated directory
    assert checkout_package(frame("/home/u/vllm/vllm/v1/engine/core.py")) is None
    assert checkout_package(frame("/home/u/sglang/python/sglang/srt/server_args.py")) is None
    assert checkout_package(frame("/home/me/run.py")) is None
    assert checkout_package(frame("/opt/app/serve/main.py")) is None


# --- PyTorch's shape errors in speculative decoding ---------------------------------------------------------
def test_a_shape_error_in_speculative_decoding_names_the_two_models() -> None:
    said = origin_of_shape(quoted_text(DATA / "sglang24215_standalone_hidden_size.txt"))
    assert said is not None and said["origin"].startswith(
        "PyTorch's shape check in speculative decoding's code (speculative/eagle_info.py, in merge_batch): "
        "sizes 4096 and 2048, most likely the target's and the draft's hidden sizes: use a draft of the "
        "target's hidden size"
    )
    # not: the same words outside speculative decoding, nor a difference in another dimension (sglang#13352's
    # count of tokens in llama_eagle3.py), nor a speculative-decoding text without a shape error
    plain = "RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 8 but got size 6"
    assert origin_of_shape(plain) is None
    tokens = (
        'File "/x/sglang/srt/speculative/eagle_worker.py", line 3, in f\nRuntimeError: Sizes of tensors must '
        "match except in dimension 1. Expected size 6 but got size 8"
    )
    assert origin_of_shape(tokens) is None
    # nor a speculative-decoding text without a shape error
    assert origin_of_shape("ValueError: speculative decoding needs --speculative-num-steps") is None


# --- a KV cache sized directly ---------------------------------------------------------------------------
def test_a_whole_number_of_gib_is_a_size_given_directly() -> None:
    message = "... larger than the available KV cache memory ({available_memory / GiB_bytes:.2f} GiB). ..."
    groups: list[dict[str, object]] = [
        {"message": message, "fix": "change --max-model-len, --gpu-memory-utilization"}
    ]
    add_kv_size_note(groups, "which is larger than the available KV cache memory (4.00 GiB). Based on")
    assert str(groups[0]["fix"]).startswith(
        "change --max-model-len; the available KV cache memory (4.00 GiB) is a whole number of GiB, so it "
        "was most likely given rather than profiled: --kv-cache-memory-bytes, or on the CPU backend "
        "VLLM_CPU_KVCACHE_SPACE (GiB)"
    )
    # not: a profiled figure, another message
    profiled: list[dict[str, object]] = [{"message": message, "fix": "change --max-model-len"}]
    add_kv_size_note(profiled, "which is larger than the available KV cache memory (3.48 GiB).")
    assert profiled[0]["fix"] == "change --max-model-len"
    other: list[dict[str, object]] = [{"message": "No available memory for the cache blocks.", "fix": "x"}]
    add_kv_size_note(other, "the available KV cache memory (4.00 GiB)")
    assert other[0]["fix"] == "x"


# --- other programs' words -------------------------------------------------------------------------------
def test_other_programs_words() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    assert said("AssertionError: mla_gluon requires gfx950 (CDNA4), got gfx942").startswith(
        "a ROCm kernel built for the AMD architecture it names only"
    )
    assert said(
        "torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Cannot call "
        "CUDAGeneratorImpl::current_seed"
    ).startswith("PyTorch's Dynamo (torch.compile's tracer)")
    assert said("NameError: name 'launch_server_cmd' is not defined").startswith(
        "Python's interpreter: code used a name nothing defined (NameError)"
    )
    # not: an architecture named without the one it got, prose about a name, a Dynamo config word
    assert said("this kernel requires gfx950 or newer") == ""
    assert said("the served model name is not defined in the config") == ""
    assert said("set torch._dynamo.config.suppress_errors") == ""


# --- an assert on the code's own state ----------------------------------------------------------------------
def test_an_assert_no_setting_reaches_is_the_releases_invariant() -> None:
    trace = _why("vllm20013_coord_socket")["traceback"]
    assert (trace["function"], trace["assert"]["condition"]) == (
        "EngineCoreProc.process_output_sockets",
        "coord_socket is not None",
    )
    assert trace["fix"].startswith(
        "its operands are the code's own values, not server arguments: an invariant of the release's "
        "own code, so with settings it accepts a bug of the release (a release with the fix, or its issue "
        "tracker)"
    )
    # not: an assert whose operands a setting gives (SGLang's page size): its flag, no claim of a bug
    paged = explain_traceback("AssertionError: assert self.page_size == 1")
    assert paged is not None and "invariant" not in paged["fix"]
    assert "its operand self.page_size (named like --page-size)" in paged["fix"]
