"""`argtrace why` on a 27th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why29/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md
"`why`, 27th batch (why29)"):

- other programs' words about the environment a server runs in, read ahead of the frames they surface in
  (``why_confidence.FOREIGN_WORDINGS``): the ROCm runtime's memory fault (AITER's kernels, an attention
  backend's), FlashInfer's version check, pip's resolver conflict, Python's pwd module on a container's
  arbitrary UID, torch_npu's aclnn failure, Dynamo's etcd lease, InstructLab's wrapper message, the kernels
  package's refusal;
- Python's "cannot import name N from M": M imported, so M's package is there and of another release than
  the importer was written for (not "broken or missing": a circular import or an "(unknown location)" is);
- a partial match whose shared words are only code names (``torch.bfloat16``) is no evidence of a message
  (``why_confidence.code_names_only``);
- a condition testing a bare name against None under a message saying something "is not available" is the
  environment's (``why._on_environment``: vLLM's NixlConnector);
- an AttributeError on a model's configuration class read in the server's model code is a key the
  checkpoint's config.json lacks (``why_attribute._model_code_reads_config``).
- an AttributeError raised in a teardown function (``shutdown``) after an earlier exception is its aftermath:
  neither the origin nor the explanation (``why_attribute.in_teardown_after_error``);
- a weight loader's "no module or parameter named X in Class" is a checkpoint saved for another class than
  its config names (``why_fixes.weight_name_fix``);
- an error inside a kernel library the server uses by a switch (AITER's frames) is the library's, and the
  switch is the way round it (``why_confidence._KERNEL_PACKAGES``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import _on_environment, explain, render_why
from argtrace.commands.why_attribute import attribute_error, in_teardown_after_error
from argtrace.commands.why_confidence import code_names_only, origin_of
from argtrace.commands.why_fixes import weight_name_fix
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why29"


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


CASES = [
    WhyCase(
        "aiter2187_fp8_moe_memory_fault",
        "d",
        "a",
        "_normalize_forward_mma_dtype",
        "weak",
        "vllm/third_party/fmha_sm100/cute/interface.py:75",
        (),
        "make the condition false (dtype not in _SUPPORTED_FWD_MMA_DTYPES)",
        origin="the ROCm runtime (HSA): a GPU kernel the engine ran faulted on memory ",
    ),
    WhyCase(
        "ascendsglang127_attn_tp_group",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "ascendsglang81_aclnn_inplace_copy",
        "c",
        "a",
        None,
        "none",
        origin="torch_npu (Ascend CANN): an aclnn operator failed on the NPU, inside t",
    ),
    WhyCase(
        "beam36966_dynamo_etcd_lease",
        "c",
        "a",
        None,
        "none",
        origin="NVIDIA Dynamo's runtime: it registers the worker in etcd and no etcd s",
    ),
    WhyCase(
        "bytedance566_kernels_revision",
        "c",
        "a",
        None,
        "none",
        origin="the kernels package (Hugging Face kernels, imported by transformers' h",
    ),
    WhyCase(
        "flagos128_bgem3_architecture",
        "a",
        "a",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:1249",
        (),
        "BgeM3EmbeddingModel is registered in vLLM 0.15.1-0.33.0 (the model class tables): install ",
        origin="pydantic_core._pydantic_core",
    ),
    WhyCase(
        "instructlab3466_vllm_failed_to_start",
        "c",
        "a",
        None,
        "none",
        origin="InstructLab (ilab model serve): its own message, vLLM's output with th",
    ),
    WhyCase(
        "intelxpu7419_nixl_on_xpu",
        "b",
        "a",
        "NixlBaseConnectorWorker.__init__",
        "strong",
        "vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:611",
        (),
        "the condition nixl_wrapper_cls is None is the environment's (whether a package is installe",
    ),
    WhyCase(
        "ktransformers1951_pip_torch",
        "c",
        "a",
        None,
        "none",
        origin="pip's dependency resolver: an installed package requires another relea",
    ),
    WhyCase(
        "lumi8_fmha_v3_varlen_gfx90a",
        "b",
        "a",
        None,
        "none",
        origin="aiter (AMD's AITER kernels, used on ROCm when AITER is on): an error",
    ),
    WhyCase(
        "minicpmcookbook71_minicpmo_k_norm",
        "a",
        "a",
        "SignalHandler.running_phase_sigquit_handler",
        "strong",
        "sglang/srt/managers/tokenizer_manager.py:1697",
        (),
        "logged unconditionally in SignalHandler.running_phase_sigquit_handler: avoid the call path",
        origin="Python's interpreter: a KeyError on a checkpoint tensor's name at the ",
    ),
    WhyCase(
        "verl4202_process_weights_after_loading",
        "b",
        "a",
        None,
        "none",
        origin="Python's import system: the module is installed but lacks the name: th",
    ),
    WhyCase(
        "verl5087_execute_model_request",
        "b",
        "a",
        None,
        "none",
        origin="Python's import system: the module is installed but lacks the name: th",
    ),
    WhyCase(
        "verl5113_maxloraranks_import",
        "b",
        "a",
        None,
        "none",
        origin="Python's import system: the module is installed but lacks the name: th",
    ),
    WhyCase(
        "vllm13373_qwen25vl_embedding_layers",
        "b",
        "a",
        "AutoWeightsLoader._load_module",
        "strong",
        "vllm/model_executor/models/utils.py:319",
        (),
        "the checkpoint's tensor names do not fit the model class the server built ('layers' in Qwen2_5_V",
    ),
    WhyCase(
        "vllm2080ti12_qwen35_failed_inspected",
        "a",
        "a",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:1225",
        (),
        "raised in _ModelRegistry._raise_for_unsupported after another failure, which its message p",
        origin="pydantic",
    ),
    WhyCase(
        "vllm29368_llama4_dict_model_type",
        "c",
        "c",
        None,
        "none",
        origin="Python's interpreter: code read the attribute model_type, which the di",
    ),
    WhyCase(
        "vllm29945_mtp_max_model_len_log",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "vllm32222_nixl_not_available",
        "b",
        "a",
        "NixlBaseConnectorWorker.__init__",
        "strong",
        "vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:611",
        (),
        "the condition nixl_wrapper_cls is None is the environment's (whether a package is installe",
    ),
    WhyCase(
        "vllm44548_getpwuid_openshift",
        "b",
        "a",
        "gen_sgl_trtllm_gen_fused_moe_sm100_module",
        "weak",
        "sglang/kernels/ops/lora/moe/trtllm_lora_temp/jit.py:47",
        (),
        "make the condition false (not (h))",
        origin="Python's pwd module (getpass.getuser()): the process runs as a user ID",
    ),
    WhyCase(
        "vllm45039_gemma4_num_soft_tokens",
        "c",
        "a",
        None,
        "none",
        origin="Python's interpreter: code read the attribute num_soft_tokens, which t",
    ),
    WhyCase(
        "vllm49804_flashinfer_cubin_version",
        "c",
        "a",
        None,
        "none",
        origin="FlashInfer's version check: the flashinfer-cubin or flashinfer-jit-cac",
    ),
    WhyCase(
        "vllmgb10_97_gemma4_unified",
        "a",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:438",
        (),
        "transformers raises this in AutoConfig.from_pretrained when its own lookup fails (KeyError",
    ),
    WhyCase(
        "vllmpr47237_inc_embedding_method",
        "b",
        "b",
        "VocabParallelEmbedding.__init__",
        "strong",
        "vllm/model_executor/layers/vocab_parallel_embedding.py:331",
        (),
        "make the condition false (is_embedding_layer and (not quant_method_implements_embedding))",
    ),
    WhyCase(
        "wave466_wave_backend_memory_fault",
        "c",
        "a",
        None,
        "none",
        origin="the ROCm runtime (HSA): a GPU kernel the engine ran faulted on memory ",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([4, 9, 11, 1], [21, 1, 3, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        ("vllm: ", "sglang: ", "transformers: ", "no framework raise or log site", "the text")
    )
    assert any(line.startswith(("  fix: ", "the text comes from ", "python: ")) for line in screen)


# --- other programs' words about the environment ------------------------------------------------------------
def test_other_programs_words_about_the_environment() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    assert said(
        "Memory access fault by GPU node-4 (Agent handle: 0x1) on address 0x2. Reason: Unknown."
    ).startswith("the ROCm runtime (HSA): a GPU kernel the engine ran faulted on memory")
    assert said("Warning: Queue error - HSA_STATUS_ERROR_MEMORY_FAULT").startswith("the ROCm runtime (HSA)")
    assert said(
        "flashinfer-jit-cache version (0.6.1) does not match flashinfer version (0.6.2). Please install"
    ).startswith("FlashInfer's version check")
    assert said(
        "vllm 0.11.0 requires transformers>=4.56.0, but you have transformers 4.55.2 which is incompatible."
    )
    assert said("KeyError: 'getpwuid(): uid not found: 1000650000'").startswith("Python's pwd module")
    assert said("NPU function error: call aclnnMatmul failed, error code is 507015").startswith("torch_npu")
    assert said(
        "BuildError(Unable to create lease. Check etcd server status at http://10.0.0.2:2379"
    ).startswith("NVIDIA Dynamo's runtime")
    assert said("vLLM failed to start.  Retry with --enable-serving-output to learn more").startswith(
        "InstructLab"
    )
    assert said("ValueError: Either a revision or a version must be specified.").startswith(
        "the kernels package"
    )
    # the cause ahead of the frame it surfaced in: the uid inside torch/_inductor/ is not the compiler's
    inductor = (
        'File "torch/_inductor/runtime/cache_dir_utils.py", line 23\n'
        + "KeyError: 'getpwuid(): uid not found: 7'"
    )
    assert said(inductor).startswith("Python's pwd module")
    # not: prose about memory, a resolver line without the conflict, an Inductor failure of its own
    assert not said("the memory access pattern of the GPU kernel").startswith("the ROCm runtime")
    assert not said("vllm 0.11.0 requires transformers>=4.56.0").startswith("pip's")
    assert said('File "torch/_inductor/codecache.py", line 3\nRuntimeError: x').startswith(
        "PyTorch's Inductor"
    )


def test_a_name_the_installed_module_lacks_is_a_release_mismatch() -> None:
    text = "ImportError: cannot import name 'ExecuteModelRequest' from 'vllm.sequence'"
    assert origin_of(text)["origin"].startswith(
        "Python's import system: the module is installed but lacks the name: the code importing it was "
        "written for another release of the module's package"
    )
    # not: a package that did not import at all, one found nowhere (a broken install), a circular import
    broken = "Python's import system: the installed package is broken or missing"
    assert origin_of("ModuleNotFoundError: No module named 'vllm._C'")["origin"] == broken
    assert (
        origin_of("ImportError: cannot import name 'ServerArgs' from 'sglang' (unknown location)")["origin"]
        == broken
    )
    circular = "ImportError: cannot import name 'A' from partially initialized module 'm' (a cycle)"
    assert origin_of(circular)["origin"] == broken


# --- code names shared by a partial match -------------------------------------------------------------------
def test_shared_code_names_are_no_evidence_of_a_message() -> None:
    site = {
        "how": "partial",
        "message": "{name} must be one of torch.bfloat16 / torch.float8_e4m3fn, got {dtype}",
    }
    line = "[fused_moe] using 1stage default for (256, 'torch.bfloat16', 'torch.float8_e4m3fn', True)"
    assert code_names_only(line, site) == ["torch.bfloat16", "torch.float8_e4m3fn"]
    assert _why("aiter2187_fp8_moe_memory_fault")["reasons"][-1] == (
        "the site's words the text holds are code names (torch.bfloat16, torch.float8_e4m3fn), which any "
        "printout of those values holds"
    )
    # not: a text holding a plain word of the message too, a full match, a message of plain words
    assert code_names_only("x must be one of torch.bfloat16 / torch.float8_e4m3fn, got y", site) is None
    assert code_names_only(line, {**site, "how": "full"}) is None
    assert code_names_only("dtype must be set", {"how": "partial", "message": "{x} must be set"}) is None


# --- a package a condition finds missing --------------------------------------------------------------------
def test_a_name_tested_against_none_under_not_available_is_the_environment() -> None:
    assert _on_environment("nixl_wrapper_cls is None", "NIXL is not available")
    assert _on_environment("not (is_flashinfer_available)")
    assert _why("intelxpu7419_nixl_on_xpu")["matches"][0]["fix"] == (
        "the condition nixl_wrapper_cls is None is the environment's (whether a package is installed or the "
        "platform offers it): no launch setting changes it; install what the message names"
    )
    # not: an attribute of the server's objects, a message that does not say something is unavailable
    assert not _on_environment("self.connector is None", "connector is not available")
    assert not _on_environment("draft_model is None", "draft_model must be set")


# --- a key the checkpoint's config lacks --------------------------------------------------------------------
def test_a_model_configs_missing_attribute_is_a_key_of_its_config_json() -> None:
    text = (
        'File "/x/site-packages/vllm/model_executor/models/foo.py", line 9, in bar\n'
        "    n = config.text_config.rope_theta\n"
        "AttributeError: 'FooTextConfig' object has no attribute 'rope_theta'"
    )
    found = attribute_error(text)
    assert found is not None
    assert found["fix"] == (
        "a checkpoint whose config.json has 'rope_theta' (the model maker's own export), a server release "
        "that does not require it, or the key added at launch with the value the model maker's config gives "
        "(vLLM: --hf-overrides, SGLang: --json-model-override-args)"
    )
    # not: outside the model code, the frameworks' own configuration classes
    engine = text.replace("model_executor/models/foo.py", "v1/engine/core.py")
    assert "config.json" not in (attribute_error(engine) or {}).get("fix", "")
    own = text.replace("FooTextConfig", "ModelConfig")
    assert "config.json" not in (attribute_error(own) or {}).get("fix", "")


# --- the aftermath of an earlier error ----------------------------------------------------------------------
def test_an_attribute_error_in_a_teardown_after_an_error_is_its_aftermath() -> None:
    text = quoted_text(DATA / "vllm32222_nixl_not_available.txt")
    assert in_teardown_after_error(text, text.index("AttributeError: 'Nixl"))
    section = _why("vllm32222_nixl_not_available")
    assert section["origin"] is None and "attribute" not in section
    # not: an AttributeError with no error before it, nor one raised outside a teardown function
    alone = (
        'File "/w/x.py", line 3, in shutdown\n    self.pool.close()\n'
        + "AttributeError: 'W' object has no attribute 'pool'"
    )
    assert not in_teardown_after_error(alone, alone.index("AttributeError"))
    inside = "RuntimeError: a\n" + alone.replace("in shutdown", "in load_model")
    assert not in_teardown_after_error(inside, inside.index("AttributeError"))
    after = "RuntimeError: a\n" + alone
    assert in_teardown_after_error(after, after.index("AttributeError"))


# --- a checkpoint saved for another class ------------------------------------------------------------------
def test_a_weight_name_no_module_has_is_a_checkpoint_of_another_class() -> None:
    group = {"message": "There is no module or parameter named '{prefix}' in {type(self.module).__name__}"}
    text = "ValueError: There is no module or parameter named 'visual' in LlamaForCausalLM"
    assert weight_name_fix(group, text) == (
        "the checkpoint's tensor names do not fit the model class the server built ('visual' in "
        "LlamaForCausalLM): the config's architectures names a class these weights were not saved for (a "
        "fine-tune saved under another class), or the checkpoint was made for another release or library; "
        "name the class the weights fit (config.json's architectures, or vLLM's --hf-overrides) and serve it "
        "for the task it is for"
    )
    # not: another message
    assert weight_name_fix({"message": "{x} is not supported"}, text) is None
