"""`argtrace why` on a 10th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/why_10/, the first line of each file names the report and the fix its thread
settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md "`why`, 10th batch",
docs/why.md):

- transformers' AutoConfig (``models/auto/configuration_auto.py``) is an indexed library: "Unrecognized model
  in X" names the model setting's value; "... Transformers does not recognize this architecture" says its
  own way out;
- argparse's refusal by a program that is no SGLang or vLLM entry point (``vllm-mlx``) is that program's;
  Python's own options handed to a server (``-u main.py``) are said to be Python's;
- a condition only on what is installed (``not (is_flashinfer_available)``) is the environment's;
- torch's out-of-memory accounting: other processes holding the GPU is the fix, whatever the step;
- a flag the text prints in a message's placeholder is that message's setting;
- four wordings of other programs (Triton's ptxas, FlashInfer's JIT, llama.cpp, NCCL's own log).

Each case asserts the first site (function and file:line), the confidence, the settings, the start of the fix
and the origin; the cases ``why`` still does not explain are strict ``xfail`` tests naming the missing
mechanism.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import _on_environment, explain, render_why
from argtrace.commands.why_library import library_settings
from argtrace.commands.why_oom import holders
from argtrace.commands.why_unrecognized import _python_options, foreign_program, origin_of_parser
from argtrace.layers.log.sites import _flags_in_placeholders
from argtrace.resolver.message_store import LIBRARY_MODULES
from tests.batches import WhyCase, assert_why_gives, batch_grades, recorded_why
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_10"
STORE = Path(__file__).parent.parent / "src" / "argtrace" / "frameworks" / "data" / "messages"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


def _why(name: str) -> dict[str, Any]:
    return recorded_why(DATA / f"{name}.txt")


# --- transformers' AutoConfig, an indexed library ------------------------------------------------------
def test_the_transformers_store_holds_autoconfig_of_three_releases() -> None:
    store = json.loads(gzip.decompress((STORE / "transformers.json.gz").read_bytes()))
    # the modules indexed, as the generator records them (since mixed40 also AutoImageProcessor's and
    # ProcessorMixin's, resolver/message_store.py's LIBRARY_MODULES)
    assert (store["library"], store["modules"]) == (True, list(LIBRARY_MODULES["transformers"]))
    assert store["modules"][0] == "transformers/models/auto/configuration_auto.py"
    assert sorted(store["releases"]) == ["4.51.3", "4.57.6", "5.23.0"]
    unrecognized = [s for s in store["sites"] if s["p"][0] == "Unrecognized model in "]
    assert [(s["fn"], s["p"][1], s["at"]) for s in unrecognized] == [
        (
            "AutoConfig.from_pretrained",
            ["pretrained_model_name_or_path"],
            {"4.51.3": [1151], "4.57.6": [1380]},
        ),
        ("AutoConfig.from_pretrained", ["pretrained_model_name_or_path"], {"5.23.0": [450]}),
    ]


def test_the_model_directory_transformers_refused_is_the_model_setting() -> None:
    # not a report: vLLM given a LoRA adapter's directory, the message cut after its list starts
    parts = [
        "Unrecognized model in ",
        ["pretrained_model_name_or_path"],
        ". Should have a `model_type` key in its ",
        ["CONFIG_NAME"],
        ", or contain one of the following strings in its name: ",
        ["', '.join(CONFIG_MAPPING.keys())"],
    ]
    text = (
        "ValueError: Unrecognized model in /data/adapters/qwen-lora. Should have a `model_type` key in its "
        "config.json, or contain one of the following strings in its name: albert, align"
    )
    settings, values = library_settings("transformers", parts, text, "vllm")
    assert values["pretrained_model_name_or_path"].strip() == "/data/adapters/qwen-lora"
    assert [(s["flag"], s["framework"], s["value"], s["via"]) for s in settings] == [
        ("--model", "vllm", "/data/adapters/qwen-lora", "transformers:pretrained_model_name_or_path")
    ]


def test_a_library_lookup_under_except_gives_the_library_s_own_way_out() -> None:
    # W9-07's words on another model type, as vLLM's pydantic validation wraps them
    text = (
        "Value error, The checkpoint you are trying to load has model type `qwen3_next` but Transformers "
        "does not recognize this architecture. This could be because of an issue with the checkpoint, or "
        "because your version of Transformers is out of date."
    )
    first = explain(text)["matches"][0]
    assert (first["framework"], first["function"], first["library"]) == (
        "transformers",
        "AutoConfig.from_pretrained",
        True,
    )
    assert first["fix"] == (
        "transformers raises this in AutoConfig.from_pretrained when its own lookup fails (KeyError), not "
        "from a server setting: its message says 'You can update Transformers with the command `pip install "
        "--upgrade transformers`.'"
    )


# --- argparse's refusal by another program; Python's own options ----------------------------------------
def test_a_program_that_is_no_entry_point_refused_its_own_words() -> None:
    assert [
        foreign_program(p) for p in ("vllm-mlx", "llamafactory-cli", "vllm", "sglang serve", "run.py", "")
    ] == [True, True, False, False, False, False]
    assert foreign_program("__main__.py") is False  # a python -m launcher (Dynamo's): placed elsewhere
    found = origin_of_parser("llamafactory-cli: error: unrecognized arguments: --max-model-len 4096")
    assert found is not None
    assert found["evidence"] == "llamafactory-cli: error: unrecognized arguments: --max-model-len 4096"
    assert found["origin"].startswith("llamafactory-cli's own argument parser: llamafactory-cli is no SGLang")
    assert origin_of_parser("vllm: error: unrecognized arguments: --lora-path") is None


def test_another_program_s_refusal_names_no_framework_site() -> None:
    section = explain("mlx-server: error: unrecognized arguments: --tensor-parallel-size 2")
    assert (section["matches"], section["confidence"]) == ([], "none")
    assert section["origin"]["origin"].startswith("mlx-server's own argument parser")
    # the frameworks' releases that take the word say nothing about another program's parser
    [sig] = section["signatures"]
    assert (sig["id"], "known_in" in sig) == ("argparse-unrecognized", False)
    assert (
        sig["fix"]
        == "mlx-server is not SGLang or vLLM: its own options apply (`mlx-server --help` lists them)"
    )


def test_python_s_options_before_a_script_are_python_s() -> None:
    assert _python_options(["-u", "main.py"]) == {"-u"}
    assert _python_options(["-B", "-u", "serve.py", "--port", "8000"]) == {"-B", "-u"}
    assert _python_options(["-m", "vllm.entrypoints.openai.api_server"]) == {"-m"}
    assert _python_options(["-u"]) == set()  # a lone -u among the server's words: a short flag, maybe
    assert _python_options(["--port", "8000"]) == set()
    first = explain("api_server.py: error: unrecognized arguments: -B -u launch.py")["matches"][0]
    assert first["fix"].startswith(
        "-B is the Python interpreter's option (python -B SCRIPT), not a vLLM flag: the command that started "
        "Python was passed on to the server as its arguments"
    )


# --- a condition on what is installed -------------------------------------------------------------------
def test_a_condition_on_what_is_installed_is_the_environment_s() -> None:
    assert [
        _on_environment(c)
        for c in (
            "not (is_flashinfer_available)",
            "not HAS_TRITON",
            "not FA3_AVAILABLE",
            "not is_port_available(port)",  # the launch's own --port
            "self.use_flashinfer and (not is_flashinfer_available())",  # reads the server's object
            "not self.server_args.disable_cuda_graph",
        )
    ] == [True, True, True, False, False, False]


# --- torch's out-of-memory accounting -------------------------------------------------------------------
def test_torch_s_accounting_says_who_holds_the_gpu() -> None:
    # not a report: vLLM's sampler warm-up with two other processes on the device
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a total capacity "
        "of 79.19 GiB of which 512.00 MiB is free. Process 811 has 30.10 GiB memory in use. Process 812 has "
        "30.00 GiB memory in use. Including non-PyTorch memory, this process has 18.55 GiB memory in use."
    )
    found = holders(text)
    assert found is not None
    assert found.as_json() == {
        "gpu": 1,
        "total_gib": 79.19,
        "free_gib": 0.5,
        "this_process_gib": 18.55,
        "other_processes_gib": {"811": 30.1, "812": 30.0},
        "asked_gib": 1.5,  # the 22nd why batch: what one allocation asked (why_oom.beyond_device)
    }
    assert found.others_hold_it()
    entry = next(s for s in explain(text)["signatures"] if s["id"] == "cuda-oom")
    assert "by_step" not in entry and "step" not in entry
    assert entry["fix"] == (
        "other processes hold 60.10 GiB of GPU 1's 79.19 GiB (process 811: 30.10 GiB, process 812: 30.00 "
        "GiB, this process 18.55 GiB): stop them or give the server another GPU (CUDA_VISIBLE_DEVICES); no "
        "memory setting of the server makes room another process holds"
    )


def test_the_server_s_own_memory_keeps_the_step_question() -> None:
    text = _text("mineru3418_oom_siglip_sglang")  # this process holds 22.31 of 23.49 GiB, no other listed
    found = holders(text)
    assert found is not None and (found.own, found.others) == (22.31, {})
    assert not found.others_hold_it()
    entry = next(s for s in explain(text)["signatures"] if s["id"] == "cuda-oom")
    assert entry["step"] == "unknown"
    assert holders("RuntimeError: CUDA error: out of memory") is None


# --- a flag in a message's placeholder ------------------------------------------------------------------
def test_the_flag_that_fills_a_placeholder_is_found() -> None:
    assert _flags_in_placeholders(
        "VLLM_USE_V1=1 is not supported with {feature_name}.",
        "NotImplementedError: VLLM_USE_V1=1 is not supported with --enable-lora.",
    ) == ["--enable-lora"]
    # a joined paste goes on after a trailing placeholder: only its first word
    assert (
        _flags_in_placeholders(
            "Unsupported connector type: {connector_name}",
            "Unsupported connector type: LMCacheConnectorV1 (--ec-transfer-config)",
        )
        == []
    )
    assert _flags_in_placeholders("no placeholder here", "no placeholder here --port") == []


def test_batch_3_s_diffusion_refusal_names_the_refused_flag() -> None:
    # sglang#34226 (WHY_MISSED_3 until this batch): the diffusion server refused --served-model-name
    first = explain("error: unrecognized arguments: --served-model-name minimax-h3")["matches"][0]
    assert (first["function"], [(s["flag"], s.get("named_in_text")) for s in first["settings"]]) == (
        "ServerArgs.from_cli_args",
        [("--served-model-name", True)],
    )


# --- other programs' wordings ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,origin",
    [
        # Zonos#184's words (an RTX 5070 Ti with Triton 3.2), not this batch's
        (
            "RuntimeError: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : Value "
            "'sm_120' is not defined for option 'gpu-name'",
            "Triton's compiler",
        ),
        ("llama_model_load: error loading model: unknown model architecture: 'gemma3n'", "llama.cpp"),
        (
            "node1:77:77 [3] transport/nvls.cc:157 NCCL WARN Cuda failure 1 'invalid argument'",
            "NCCL's own log",
        ),
        ("RuntimeError: FlashInfer requires GPUs with sm75 or higher", "FlashInfer's JIT"),
    ],
)
def test_another_program_s_wording_names_it(text: str, origin: str) -> None:
    section = explain(text)
    assert section["origin"]["origin"].startswith(origin)
    assert section["confidence"] in ("none", "weak")


# --- the 25 texts ---------------------------------------------------------------------------------------


CASES = [
    WhyCase(
        "mineru4868_max_tokens_docker_ts",
        "a",
        "a",
        "OpenAIServing._validate_input",
        "strong",
        "vllm/entrypoints/openai/engine/serving.py:912",
        ("max_model_len",),
        "make the condition false (max_tokens is not None and token_num + max_tokens > self.max_model_len): "
        "change --max-model-len",
    ),
    WhyCase(
        "workervllm257_rope_type_pydantic",
        "b",
        "b",
        "patch_rope_scaling_dict",
        "strong",
        "vllm/transformers_utils/config.py:420",
        (),
        "make the condition false ('rope_type' not in rope_scaling)",
        "pydantic",
    ),
    WhyCase(
        "vllmpr52535_heads_tp3_value_error",
        "a",
        "a",
        "ModelConfig.verify_with_parallel_config",
        "strong",
        "vllm/config/model.py:1560",
        ("tensor_parallel_size",),
        "make the condition false (total_num_attention_heads % tensor_parallel_size != 0): change "
        "--tensor-parallel-size",
    ),
    WhyCase(
        "fsdrive21_heads_tp8_plain",
        "a",
        "a",
        "ModelConfig.verify_with_parallel_config",
        "strong",
        "vllm/config/model.py:1560",
        ("tensor_parallel_size",),
    ),
    WhyCase(
        "sglang9330_hybrid_attn_spec_assert",
        "a",
        "a",
        "ModelRunner._get_attention_backend",
        "strong",
        "sglang/srt/model_executor/model_runner.py:1443",
        (
            "attention_backend",
            "decode_attention_backend",
            "prefill_attention_backend",
            "speculative_algorithm",
        ),
    ),
    WhyCase(
        "vllm29469_ptxas_sm121a_enginecore",
        "c",
        "a",
        None,
        "none",
        origin="Triton's compiler: the ptxas its release bundles does not know this GPU's architecture",
    ),
    WhyCase(
        "vllmpr45312_kv_cache_num_bits4",
        "b",
        "b",
        "CompressedTensorsKVCacheMethod.validate_kv_cache_scheme",
        "strong",
        "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py:1118",
        ("quantization",),
    ),
    WhyCase(
        "vllm17355_v1_kv_cache_dtype",
        "a",
        "a",
        "_raise_or_fallback",
        "strong",
        "vllm/engine/arg_utils.py:1730",
        ("VLLM_USE_V1", "kv_cache_dtype"),
        "make the condition false (envs.is_set('VLLM_USE_V1') and envs.VLLM_USE_V1): change VLLM_USE_V1, "
        "--kv-cache-dtype",
    ),
    WhyCase(
        "llmflux50_flashinfer_unavailable_ansi",
        "b",
        "a",
        "TopKTopPSampler.__init__",
        "strong",
        "vllm/v1/sample/ops/topk_topp_sampler.py:66",
        (),
        "the condition not (is_flashinfer_available) is the environment's (whether a package is installed or "
        "the platform offers it): no launch setting changes it; install what the message names",
    ),
    WhyCase("vllm12526_diststore_timeout_title", "c", "c", None, "none", origin="torch.distributed"),
    WhyCase("vllm52907_diststore_worker_prefix", "c", "c", None, "none", origin="torch.distributed"),
    WhyCase("moss71_oom_http_body", "b", "a", None, "none"),
    WhyCase(
        "mineru3418_oom_siglip_sglang",
        "b",
        "b",
        "_set_envs_and_config.launch_phase_sigquit_handler",
        "strong",
        "sglang/srt/entrypoints/engine.py:1977",
        origin="transformers",
    ),
    WhyCase(
        "sglang7483_unrecognized_model_truncated",
        "d",
        "b",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:1380",
        ("model_path", "model"),
        "transformers refused 'unsloth/Mistral-Small-3.2-24B-Instruct-2506-FP8', which comes from "
        "--model-path (sglang), --model (vllm): transformers reads that directory's or repo's config.json "
        "and finds no model_type it knows",
    ),
    WhyCase(
        "sglang6246_nccl_cuda_failure_p2p",
        "c",
        "b",
        None,
        "none",
        origin="NCCL's own log (NCCL_DEBUG): a CUDA call inside NCCL failed on this node",
    ),
    WhyCase(
        "vllm20226_nccl_unhandled_cuda_error",
        "b",
        "b",
        "NCCLLibrary.NCCL_CHECK",
        "strong",
        "vllm/distributed/device_communicators/pynccl_wrapper.py:464",
    ),
    WhyCase(
        "vllmpr48956_flashinfer_sm75_5090",
        "c",
        "a",
        None,
        "none",
        origin="FlashInfer's JIT: it found no GPU architecture it can build for (also an SM 12.x GPU with a "
        "CUDA toolkit older than 12.9); vLLM's FlashInfer sampler reaches it at start-up: "
        "VLLM_USE_FLASHINFER_SAMPLER=0",
    ),
    WhyCase("tt3151_n150_max_model_len", "c", "c", None, "none"),
    WhyCase(
        "homl3_api_server_unrecognized_u_main",
        "b",
        "a",
        "FlexibleArgumentParser.parse_args",
        "strong",
        "vllm/entrypoints/common/cli_args.py:431",
        (),
        "-u is the Python interpreter's option (python -u SCRIPT), not a vLLM flag: the command that started "
        "Python was passed on to the server as its arguments (a wrapper or entrypoint appended it); remove "
        "those words from the server's arguments",
    ),
    WhyCase(
        "sglang12076_spec_hicache_compose",
        "c",
        "c",
        "GenerateBaseServing._raise_if_error",
        "weak",
        "vllm/entrypoints/generate/base/serving.py:207",
        origin="asyncio.exceptions",
    ),
    WhyCase(
        "gpustack1804_unrecognized_model_wrapped",
        "d",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:1380",
        ("model_path", "model"),
        "transformers refused '/tmp/pycharm_project_351/src/lora_model_QwQ-32B', which comes from "
        "--model-path (sglang), --model (vllm): transformers reads that directory's or repo's config.json "
        "and finds no model_type it knows; give the model's own directory (a LoRA adapter's goes to the LoRA "
        "flags",
    ),
    # not SGLang's or vLLM's: no confident site, the program named
    WhyCase(
        "ollama15545_gemma4_llamacpp",
        "b",
        "a",
        "_try_load_model_cls",
        "weak",
        "vllm/model_executor/models/registry.py:1152",
        origin="llama.cpp (llama-server, Ollama's runner, its bindings), not SGLang or vLLM",
    ),
    WhyCase(
        "buunllama123_glm5next_journald",
        "b",
        "a",
        "NixlKVSender.poll",
        "weak",
        "sglang/srt/disaggregation/nixl/conn.py:1153",
        origin="llama.cpp (llama-server, Ollama's runner, its bindings), not SGLang or vLLM",
    ),
    WhyCase(
        "llamacpprs866_qwen3vlmoe_tracing",
        "b",
        "a",
        None,
        "none",
        origin="llama.cpp (llama-server, Ollama's runner, its bindings), not SGLang or vLLM",
    ),
    WhyCase(
        "vllmmlx7_api_key_unrecognized",
        "d",
        "a",
        None,
        "none",
        origin="vllm-mlx's own argument parser: vllm-mlx is no SGLang or vLLM program",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([5, 10, 7, 3], [15, 6, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


def test_the_other_processes_are_the_fix_of_the_http_body() -> None:
    section = _why("moss71_oom_http_body")
    entry = section["signatures"][0]
    assert (entry["id"], entry["holders"]["other_processes_gib"]) == ("cuda-oom", {"5403": 21.69})
    assert entry["fix"].startswith("other processes hold 21.69 GiB of GPU 0's 23.53 GiB (process 5403: 21.69")


def test_the_text_view_puts_the_library_site_first() -> None:
    view = render_why(_why("gpustack1804_unrecognized_model_wrapped"))
    assert view.splitlines()[0] == (
        "transformers: ValueError raised in AutoConfig.from_pretrained "
        "(transformers/models/auto/configuration_auto.py:1380)"
    )


# --- what class a would need, for the cases not there (strict xfail: each names the missing mechanism) ----
MISSING = [
    (
        "workervllm257_rope_type_pydantic",
        lambda s, first: "hf_overrides" in [x["name"] for x in first["settings"]],
        "patch_rope_scaling_dict's condition reads a parameter (the model config's rope_scaling dict); what "
        "fills it (the checkpoint's config.json, --hf-overrides) is not traced to the site",
    ),
    (
        "vllmpr45312_kv_cache_num_bits4",
        lambda s, first: "quantization" not in [x["name"] for x in first["settings"]],
        "the compressed-tensors check reads the checkpoint's kv_cache_scheme; why_quant names --quantization "
        "for any raise of a quantization module, which cannot change the checkpoint",
    ),
    (
        "mineru3418_oom_siglip_sglang",
        lambda s, first: first is None or "sigquit" not in first["function"],
        "SGLang's 'Received sigquit from a child process' is a consequence the paste also holds; a site that "
        "only reports another process's failure is not ranked below the exception before it",
    ),
    (
        "sglang7483_unrecognized_model_truncated",
        lambda s, first: "params.json" in first["fix"],
        "the checkpoint is in Mistral's format (params.json), which transformers' message does not say; "
        "which release of SGLang loads that format is not known",
    ),
    (
        "sglang6246_nccl_cuda_failure_p2p",
        lambda s, first: first is not None,
        "NCCL's 'Cuda failure' is C code (not indexed); the report settles no fix",
    ),
    (
        "vllm20226_nccl_unhandled_cuda_error",
        lambda s, first: first["settings"],
        "NCCL_CHECK only passes NCCL's error on; which CUDA call failed is in NCCL_DEBUG=INFO's output",
    ),
    (
        "vllm12526_diststore_timeout_title",
        lambda s, first: first is not None,
        "torch.distributed's TCPStore is C++; the report settles no fix",
    ),
    (
        "vllm52907_diststore_worker_prefix",
        lambda s, first: first is not None,
        "a Gloo barrier deadlock of two dev builds (a regression): no launch setting, no indexed site",
    ),
    (
        "sglang12076_spec_hicache_compose",
        lambda s, first: first is not None and first["framework"] == "sglang",
        "a CancelledError and an HTTP 500: the failure (speculative decoding with HiCache) is not in the "
        "text",
    ),
    (
        "tt3151_n150_max_model_len",
        lambda s, first: first is not None,
        "Tenstorrent's vLLM model code is not indexed (a plugin's wheel); the message's own 'Set "
        "--max_model_len to 32768' is not read as a setting without a site",
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
    assert section["confidence"] == "strong"


def test_every_case_not_in_class_a_names_its_missing_mechanism() -> None:
    assert sorted(n for n, _, _ in MISSING) == sorted(c.name for c in CASES if c.grade != "a")
