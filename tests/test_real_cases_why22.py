"""`argtrace why` on a 22nd batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why22/, the first line of each file names the report, the release and
the fix its thread settled on, or that none settled), as a new user runs it (``--framework-version`` only
where the reporter named the release), and the mechanisms they led to (docs/real_cases.md "`why`, 22nd
batch"):

- torch's out-of-memory accounting: a listed process that is this one (seen from another PID namespace), and
  one allocation larger than the whole device, which no sharing setting makes room for (``why_oom``);
- Python's KeyError on a checkpoint tensor's name at the weight loader (``why_weights``);
- a setting's name the text says is None, whose flag is unset by default (``why_none.unset_field``);
- other programs' words: PyTorch's "driver too old", a Rust router's panic, Jinja2's template syntax error,
  ``int()`` of a decimal, and the chat-template wording naming ``--chat-template`` (``why_confidence``);
- transformers refusing to register a class the framework registers itself: a newer transformers
  (``why_register``);
- Python's KeyError of a model type, read against the model types each transformers release knows, generated
  from the wheels (``why_modeltype``, scripts/gen_model_types.py).
"""

from __future__ import annotations

import copy
import functools
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_confidence import origin_of
from argtrace.commands.why_modeltype import _table, model_type_key
from argtrace.commands.why_none import none_operand, unset_field
from argtrace.commands.why_oom import holders
from argtrace.commands.why_register import add_registration_cause
from argtrace.commands.why_weights import weight_key
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why22"

# the releases the reporters named (``--framework-version``); the others ran without it
VERSION = {
    "primerl3012_max_cpu_loras": "0.24.0",
    "gpustack3392_eagle_topk_none_title": "0.5.5",
    "vllm18718_llama4_awq_keyerror_title": "0.8.5",
    "vllm15230_template_syntax_error_title": "0.7.2",
    "sglang4607_config_already_used_title": "0.4.4.post1",
    "sglang7223_json_override_title": "0.4.7",
}


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"), None, VERSION.get(name))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


_WEIGHT = "Python's interpreter: a KeyError on a checkpoint tensor's name at the model's weight loader"

CASES = [
    WhyCase("dotsocr196_oom_74gib", "d", "a", None, "none", origin="torch"),
    WhyCase(
        "funasr2973_driver_too_old", "c", "a", None, "none", origin="PyTorch's CUDA start: the NVIDIA driver"
    ),
    WhyCase("gpustack3392_eagle_topk_none_title", "c", "a", None, "none"),
    WhyCase(
        "primerl3012_max_cpu_loras",
        "a",
        "a",
        "LoRAConfig._validate_lora_config",
        "strong",
        "vllm/config/lora.py:113",
        ("max_cpu_loras", "max_loras"),
        "make the condition false (self.max_cpu_loras < self.max_loras): change --max-cpu-loras, --max-loras",
    ),
    WhyCase("sglang2778_router_startup_timeout_title", "a", "a", None, "none"),
    WhyCase("sglang30609_kvtransfererror_title", "c", "c", None, "none"),
    WhyCase(
        "sglang3385_chat_template_not_set",
        "b",
        "a",
        "validate_request_params",
        "weak",
        "vllm/tokenizers/mistral.py:148",
        ("chat_template",),
        "make the condition false (request.chat_template is not None",
        origin="transformers: the model's tokenizer has no chat template",
    ),
    WhyCase(
        "sglang4607_config_already_used_title",
        "b",
        "a",
        "_LazyConfigMapping.register",
        "strong",
        "transformers/models/auto/configuration_auto.py:148",
        (),
        "SGLang registers its own Qwen2_5_VLConfig (sglang.srt.configs.qwen2_5_vl_config.Qwen2_5_VLConfig) "
        "with transformers' Auto classes, and the installed transformers already has a class of that name: "
        "transformers is newer than this SGLang release was made for",
    ),
    WhyCase("sglang6732_keyerror_llava_qwen_title", "c", "b", None, "none"),
    WhyCase("sglang7028_router_panic", "c", "a", None, "none", origin="a Rust router's panic"),
    WhyCase(
        "sglang7223_json_override_title",
        "c",
        "c",
        "_detect_content_format",
        "weak",
        "vllm/renderers/hf.py:593",
        (),
        "this reports Exception raised by the code it wraps",
    ),
    WhyCase(
        "sglangdas304_unexpected_kwarg_server_args",
        "b",
        "b",
        None,
        "none",
        origin="Python's interpreter: a call to resolve_num_tokens_per_req",
    ),
    WhyCase(
        "sglangpr12904_global_server_args",
        "b",
        "b",
        "RuntimeContext.server_args",
        "strong",
        "sglang/srt/runtime_context.py:1028",
        (),
        "make the condition false (server_args is None)",
    ),
    WhyCase(
        "sglangpr23181_pool_not_enough_memory",
        "a",
        "a",
        "MemoryPoolConfig.__post_init__",
        "strong",
        "sglang/srt/model_executor/pool_configurator.py:99",
        ("mem_fraction_static",),
        "make the condition false (self.max_total_num_tokens <= 0): change --mem-fraction-static",
    ),
    WhyCase(
        "sglangpr36444_ngram_torch_native_shape",
        "b",
        "b",
        None,
        "none",
        origin="Python's interpreter: code read the attribute shape",
    ),
    WhyCase("vllm12030_oom_title", "b", "b", None, "none", origin="torch"),
    WhyCase(
        "vllm15230_template_syntax_error_title",
        "c",
        "a",
        "_require",
        "weak",
        "vllm/v1/kv_offload/tiering/p2p/session/protocol.py:84",
        (),
        "make the condition false (not isinstance(val, typ))",
        origin="Jinja2's template parser: the chat template is not valid Jinja",
    ),
    WhyCase("vllm16450_r1_pp_keyerror", "c", "b", None, "none", origin=_WEIGHT),
    WhyCase("vllm18718_llama4_awq_keyerror_title", "c", "b", None, "none", origin=_WEIGHT),
    WhyCase(
        "vllm18835_no_kernel_image_title", "a", "a", None, "none", origin="the CUDA runtime: the installed"
    ),
    WhyCase(
        "vllm21028_rtx5090_engine_core",
        "b",
        "b",
        "wait_for_engine_startup",
        "strong",
        "vllm/v1/engine/utils.py:1253",
        (),
        "raised in wait_for_engine_startup after another failure, which its message points to",
    ),
    WhyCase("vllm27138_glm45v_keyerror_title", "c", "b", None, "none", origin=_WEIGHT),
    WhyCase("vllmascend8506_dcp_comm_backend_literal", "a", "a", None, "none", origin="pydantic_core"),
    WhyCase("vllmpr36128_cpu_kvcache_space_float", "c", "b", None, "none", origin="Python's int(): a whole"),
    WhyCase("xuanyuan46_scb_keyerror_title", "c", "a", None, "none", origin=_WEIGHT),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([5, 7, 12, 1], [13, 10, 2, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        ("vllm: ", "sglang: ", "transformers: ", "the text comes from ", "no framework raise or log site")
    )
    # a fix line, or the origin's sentence, which says the way out for another program's words
    assert any(line.startswith(("  fix: ", "the text comes from ")) for line in screen)


# --- torch's out-of-memory accounting ---------------------------------------------------------------------
def test_one_allocation_beyond_the_device_and_a_process_that_is_this_one() -> None:
    entry = next(s for s in _why("dotsocr196_oom_74gib")["signatures"] if s["id"] == "cuda-oom")
    # process 2684311 holds 14.51 GiB, PyTorch allocated 13.44 and reserved 0.74: it is this process
    assert entry["holders"]["this_process_pid"] == 2684311
    assert entry["holders"]["other_processes_gib"] == {}
    assert entry["fix"].startswith(
        "one allocation of 74.16 GiB is more than GPU 0's whole 44.40 GiB (process 2684311 is this process"
    )
    assert "stop them" not in entry["fix"] and "by_step" not in entry


def test_the_accounting_on_texts_that_are_not_reports() -> None:
    base = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {asked}. GPU 0 has a total capacity "
    )
    base += "of 24.00 GiB of which 10.00 MiB is free. Process 7 has {held} memory in use. Of the allocated "
    base += "memory 20.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated."
    own = holders(base.format(asked="2.00 GiB", held="21.50 GiB"))
    assert own is not None and own.own_pid == 7 and own.others == {} and not own.others_hold_it()
    assert not own.beyond_device()
    # a listed process holding less than PyTorch's own figures is another process
    other = holders(base.format(asked="2.00 GiB", held="3.00 GiB"))
    assert other is not None and other.own_pid is None and other.others == {7: 3.0}
    assert holders(base.format(asked="30.00 GiB", held="21.50 GiB")).beyond_device()  # type: ignore[union-attr]
    # "this process" printed: the listed processes are others, whatever they hold
    two = base.format(asked="2.00 GiB", held="21.50 GiB") + " Including non-PyTorch memory, this process has "
    found = holders(two + "1.00 GiB memory in use.")
    assert found is not None and found.own_pid is None and found.others == {7: 21.5}


# --- a KeyError on a checkpoint tensor's name -------------------------------------------------------------
def test_a_checkpoint_tensor_the_model_has_no_parameter_for() -> None:
    scb = _why("xuanyuan46_scb_keyerror_title")["weights"]
    assert scb["name"] == "layers.23.mlp.down_proj.SCB"
    assert scb["fix"].startswith("'SCB' is not a plain weight or bias but a quantized layer's tensor")
    assert "--quantization" in scb["fix"]
    plain = _why("vllm16450_r1_pp_keyerror")["weights"]
    assert plain["fix"].startswith("the checkpoint's tensor names do not fit the model this release builds")
    assert (
        plain["rests_on"]
        == "the tensor's name alone (the text does not say which release or checkpoint format)"
    )


def test_which_keyerrors_are_a_tensor_name() -> None:
    # not reports: a plain weight, a quantized tensor met while loading, and what is not a tensor name
    assert weight_key("KeyError: 'model.layers.0.self_attn.o_proj.weight'")["name"] == (  # type: ignore[index]
        "model.layers.0.self_attn.o_proj.weight"
    )
    assert weight_key("in load_weights: KeyError: 'layers.3.mlp.qzeros'")["fix"].startswith(  # type: ignore[index]
        "'qzeros' is not a plain weight"
    )
    assert (
        weight_key("KeyError: 'language_model.model.layers.20.linear_attn'") is None
    )  # a module (vllm#36640)
    assert weight_key("KeyError: 'rope_type'") is None  # a config key: no layer index
    assert weight_key("ValueError: layers.0.mlp.weight is wrong") is None  # no KeyError


# --- a setting said to be None ----------------------------------------------------------------------------
def test_a_setting_the_text_says_is_none() -> None:
    none = _why("gpustack3392_eagle_topk_none_title")["none"]
    assert none["flags"] == ["--speculative-eagle-topk"]
    assert none["fix"].startswith("give --speculative-eagle-topk a value")
    # not reports: a name no flag has, a flag with a default, and "is not None"
    assert unset_field("the thing_that_is_nothing is None") is None
    assert unset_field("tp_size is None") is None
    assert unset_field("speculative_eagle_topk is not None") is None
    assert none_operand("speculative_num_steps is None")["flags"] == ["--speculative-num-steps"]  # type: ignore[index]


# --- other programs' words --------------------------------------------------------------------------------
def test_other_programs_words() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    assert said(
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)."
    ).startswith("PyTorch's CUDA start")
    assert said(
        "thread 'tokio-runtime-worker' panicked at sgl-model-gateway/src/routers/http/router.rs:88:5:"
    )
    assert said("thread 'main' panicked at src/client.rs:59:45:") == ""  # another Rust program's panic
    assert said("jinja2.exceptions.TemplateSyntaxError: unexpected '}'").startswith(
        "Jinja2's template parser"
    )
    assert said("ValueError: invalid literal for int() with base 10: '8.5'").startswith("Python's int()")
    assert said("ValueError: invalid literal for int() with base 10: 'auto'") == ""  # not a decimal
    chat = _why("sglang3385_chat_template_not_set")["origin"]["origin"]
    assert chat.endswith("--chat-template FILE, in SGLang and vLLM)")


# --- transformers refusing a framework's own class --------------------------------------------------------
def test_a_class_the_framework_registers_that_transformers_already_has() -> None:
    def fixed(text: str, message: str = "'{key}' is already used by a Transformers model.") -> str:
        groups = [{"message": message, "fix": "make the condition false (key in self._mapping)"}]
        add_registration_cause(groups, text)
        return str(groups[0]["fix"])

    # not reports: vLLM's own config class; a class of another package; another message
    vllm = "ValueError: '<class 'vllm.transformers_utils.configs.ovis.OvisConfig'>' is already used by a "
    assert fixed(vllm + "Transformers model.").startswith("vLLM registers its own OvisConfig (vllm.")
    other = "ValueError: '<class 'mypkg.configs.MyConfig'>' is already used by a Transformers model."
    assert fixed(other) == "make the condition false (key in self._mapping)"
    assert fixed(vllm, "another message") == "make the condition false (key in self._mapping)"


# --- a KeyError of a model type ---------------------------------------------------------------------------
def test_a_model_type_no_transformers_release_knows() -> None:
    found = _why("sglang6732_keyerror_llava_qwen_title")["model_type"]
    assert found["key"] == "llava_qwen" and found["known_in"] == []
    assert found["meaning"].startswith(
        "Python's KeyError of 'llava_qwen': no transformers release indexed (4.46.3-5.23.0) knows this model "
        "type, a variant of its 'llava' family"
    )
    assert found["fix"].startswith("load the model with the code that defines the type: --trust-remote-code")


def test_model_types_by_release_on_keys_that_are_not_reports() -> None:
    qwen3 = model_type_key("KeyError: 'qwen3'")
    assert qwen3 is not None and qwen3["known_in"] == ["4.51.3", "4.57.6", "5.23.0"]
    assert qwen3["fix"].startswith("install a transformers that knows it (4.51.3 does; the releases between")
    assert model_type_key("KeyError: 'llama'") is None  # every indexed release knows it: not said
    assert model_type_key("KeyError: 'rope_type'") is None  # no type, nor a variant of one
    assert model_type_key("KeyError: 'layers.0.weight'") is None  # a tensor name (why_weights)
    assert _table()["generated_by"] == "scripts/gen_model_types.py"


def test_the_generator_reads_both_layouts_of_the_table() -> None:
    path = Path(__file__).parents[1] / "scripts" / "gen_model_types.py"
    spec = importlib.util.spec_from_file_location("gen_model_types", path)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    # 4.x: an OrderedDict of pairs; 5.x: auto_mappings.py's table, then updates and an OrderedDict(**...)
    four = 'CONFIG_MAPPING_NAMES = OrderedDict([("llama", "LlamaConfig"), ("qwen3", "Qwen3Config")])'
    assert gen.model_types(four) == ["llama", "qwen3"]
    five = 'CONFIG_MAPPING_NAMES.update({"mimi_decoder": "X"})\n'
    five += 'CONFIG_MAPPING_NAMES = OrderedDict(**{"gpt-sw3": "GPT2Config"}, **CONFIG_MAPPING_NAMES)'
    assert gen.model_types(five) == ["gpt-sw3", "mimi_decoder"]
