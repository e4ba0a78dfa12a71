"""The ninth batch of real failure reports (docs/real_cases.md, "Ninth batch"), measured before any fix.

Multimodal flags, structured output, parsers, JSON-valued flags, attention backends per GPU, CUDA graphs,
HiCache/LMCache/offloading, LoRA limits and context length. Each case under ``tests/data/real_cases_9/`` is
our reconstruction of a launch posted in a public issue; its header names the URL. The machine is a new
user's (no resolver environment, no Hugging Face cache); the release is passed only when the report names
it, the GPU only when it names the GPU. A miss is a strict ``xfail`` whose reason names the mechanism, so a
change that alters the outcome turns the test red. ``why`` cases take the error text the report quotes;
five reports quote only an error text. The five correct launches collected with this batch (``ok_*``, from
the frameworks' and Qwen's documentation and SGLang's own benchmark script) must raise no error or warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import recorded_check
from tests.conftest import FRAMEWORK_BUG, Launch, Missed, alarms, run_cli, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_9"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


LAUNCHES = {
    "vllm14192": Launch("vllm14192_hf_overrides_unquoted.cmd"),
    "glmv15": Launch("glmv15_limit_mm_glm41v.cmd", v("0.9.1")),
    "vllm16339": Launch("vllm16339_guided_guidance.cmd"),
    "sglang9452": Launch("sglang9452_hicache_disable_radix.cmd"),
    "sglang16808": Launch("sglang16808_hicache_mooncake_extra_config.cmd"),
    "lmcache638": Launch("lmcache638_connector_v1_v0_engine.sh"),
    "sglang12360": Launch("sglang12360_qwen3vl_fa3_b200.cmd", ("--gpu", "b200")),
    "sglang12627": Launch("sglang12627_lora_target_modules_all.cmd", v("0.5.4")),
    "vllm27620": Launch("vllm27620_enable_lora_granite4.cmd"),
    # a dev build of 0.6.6.post2: its family
    "vllm11986": Launch("vllm11986_cpu_offload_device_cpu.cmd", v("0.6.6")),
    "vllm44780": Launch("vllm44780_kv_offloading_native.cmd", v("0.22.0")),
    "sglang13999": Launch("sglang13999_llava15_hf.cmd"),
    "vllm30919": Launch("vllm30919_gptoss_flashinfer_sinks.sh", ("--gpu", "b200")),
    "vllm40153": Launch("vllm40153_gptoss20b_force_flashinfer.cmd", (*v("0.17.0"), "--gpu", "rtx-pro-6000")),
    "vllm30195": Launch("vllm30195_dsv32_b200.cmd", ("--gpu", "b200")),
}

CORRECT = {
    "ok_vllm_docs_lora_modules": Launch("ok_vllm_docs_lora_modules.cmd"),
    "ok_vllm_docs_phi35_vision_limit_mm": Launch("ok_vllm_docs_phi35_vision_limit_mm.cmd"),
    "ok_qwen_docs_sglang_yarn": Launch("ok_qwen_docs_sglang_yarn.cmd"),
    "ok_sglang_hf3fs_hicache": Launch("ok_sglang_hf3fs_hicache.sh"),
    "ok_sglang_docs_deterministic_fa3": Launch("ok_sglang_docs_deterministic_fa3.cmd"),
}

# --- class a by `check`: the root cause and a correct fix on the first screen ------------------------------

FOUND_9 = {
    # was b (2026-12-02, before any change): info only. The shell took the double quotes off the unquoted
    # JSON and split it at its space; vLLM 0.9+'s union_dict_and_str keeps `{architectures:` as a string
    # the model config then refuses, 0.6-0.8's json.loads refused it at once: it fails on every release
    # (layers/parser/releases.refused_by_every_release, kept_json_string_fails)
    "vllm14192": (
        "PA011",
        "error",
        "--hf-overrides '{architectures:' is not valid JSON (Expecting property name enclosed in double "
        "quotes at column 2); the parser keeps the string and the server fails when it decodes it",
        "single-quote the JSON so that the shell keeps its double quotes",
    ),
    # was c: nothing without a resolver. RS032 evaluates the release's indexed check (layers/start_raises.py);
    # a warning because no release is named (the reporter's, August 2025, crashed in the scheduler instead)
    "sglang9452": (
        "RS032",
        "warning",
        "sglang 0.5.23 refuses --enable-hierarchical-cache, --disable-radix-cache at start-up: ValueError "
        "'The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive and "
        "cannot be "
        "used at the same time. Please use only one of them.' (handle_cache_compatibility, "
        "sglang/srt/arg_groups/kv_cache_hook.py:394; sglang 0.5.1.post3-0.5.23 check it)",
        "change or remove --enable-hierarchical-cache or --disable-radix-cache (the check's message says "
        "which)",
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND_9))
def test_batch_9_the_root_cause_is_named(name: str) -> None:
    report = check(LAUNCHES[name])
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)] == [FOUND_9[name]]


# --- misses: no error or warning names the root cause -------------------------------------------------------


STAND_IN = "PR008: the named release is read from its family's bundled release (true of argtrace's reach)"
MODEL = "the model's support in that release (config.json and the release's model registry, not the flags)"

MISSED_9 = [
    Missed(
        "glmv15",
        f"vLLM 0.9.1 does not register GLM-4.1V's architecture as multimodal: {MODEL}; `why` names "
        "ModelConfig._init_multimodal_config with --limit-mm-per-prompt, whose fix (change the flag) is not "
        f"the report's (a newer vLLM): class b by why. {STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllm16339",
        "the installed llguidance predates the call vLLM makes (LLMatcher.validate_grammar): a package of "
        "the environment, not a flag; `why` has no site for the TypeError (it says Python's, at that call)",
    ),
    Missed(
        "sglang16808",
        f"the decode instance's HiCache storage config reached mooncake as a string: {FRAMEWORK_BUG}",
    ),
    Missed(
        "lmcache638",
        "the vLLM of that Dynamo venv predates LMCacheConnectorV1 (its V0 engine); the release is not named "
        "and 0.33.0 registers the connector; `why` names KVConnectorFactory.get_connector_class and "
        "--kv-transfer-config first (the encoder-cache factory's twin raise second since "
        "commands/why_context.py): class b by why",
    ),
    Missed(
        "sglang12360",
        "SGLang picked fa3 for the vision encoder by default on a B200 (no flag of the user's): the "
        "framework's default; `why` names VisionAttention._determine_attention_backend and, since "
        "commands/why_backend.py, --mm-attention-backend (was b: no setting): class a by why",
    ),
    Missed(
        "sglang12627",
        f"LLaMA-Factory's LoRA names target modules with layer prefixes SGLang 0.5.4 does not normalise: the "
        f"adapter's format and {FRAMEWORK_BUG}. {STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllm27620", f"a hybrid model with --enable-lora crashed at KV-cache initialisation: {FRAMEWORK_BUG}"
    ),
    Missed(
        "vllm11986",
        f"the CPU worker of that dev build cannot take --cpu-offload-gb: a framework limit of the build; "
        f"`why` says Python's TypeError at a call to Worker.__init__ (was: an SGLang site). {STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllm44780", f"native KV offloading crashed on long contexts: {FRAMEWORK_BUG}. {STAND_IN}", ("PR008",)
    ),
    Missed(
        "sglang13999",
        f"SGLang has no processor for the llava-hf layout of LLaVA-1.5: {MODEL}; `why` names "
        "LlavaMultimodalProcessor._get_sgl_processor_cls (class b by why)",
    ),
    Missed(
        "vllm30919", f"FlashInfer without attention sinks for gpt-oss on B200 (PR#30842): {FRAMEWORK_BUG}"
    ),
    Missed(
        "vllm40153",
        "FlashInfer takes no attention sinks on SM120 and gpt-oss has them: the GPU's kernels and the "
        "model's config.json (not on a new user's machine); `why` names the selector and, since "
        "commands/why_backend.py, --attention-backend to drop (was b: no setting): class a by why. "
        f"{STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllm30195", f"the backend selection for DeepSeek-V3.2 on Blackwell (CUTLASS_MLA): {FRAMEWORK_BUG}"
    ),
]


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_9]
)
def test_batch_9_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case
    found = alarms(check(LAUNCHES[case.name]))
    assert [f for f in found if f["code"] not in case.besides] != []


def test_batch_9_the_misses_raise_no_other_alarm() -> None:
    """Class d is a wrong error or warning: the misses raise none besides the listed ones (none was d on
    first sight)."""
    got = {}
    for case in MISSED_9:
        codes = sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))})
        if codes:
            got[case.name] = codes
    assert got == {}  # PR008, the family's stand-in, is a note


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_9_correct_launches_raise_no_alarm(name: str) -> None:
    assert alarms(check(CORRECT[name])) == []


# --- RS032: a release's own argument check that refuses a combination of the flags given -------------------


def rs032(command: str, tmp_path: Path, *options: str) -> list[tuple[str, str]]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command], cwd=tmp_path)
    return [(f["severity"], f["message"]) for f in result.json["findings"] if f["code"] == "RS032"]


def test_rs032_is_an_error_on_a_named_release(tmp_path: Path) -> None:
    command = (
        "python -m sglang.launch_server --model-path /m --enable-hierarchical-cache --disable-radix-cache"
    )
    assert [s for s, _ in rs032(command, tmp_path, *v("0.5.23"))] == ["error"]
    # 0.4.x has no such check (the scheduler crashed instead, the report's release): nothing to say
    assert rs032(command, tmp_path, *v("0.4.10.post2")) == []


def test_rs032_follows_vllm_lora_limits(tmp_path: Path) -> None:
    command = "vllm serve /m --enable-lora --max-loras 4 --max-cpu-loras 2"
    assert rs032(command, tmp_path, *v("0.33.0")) == [
        (
            "error",
            "vllm 0.33.0 refuses --max-cpu-loras 2, --max-loras 4 at start-up: ValueError 'max_cpu_loras "
            "({self.max_cpu_loras}) must be >= max_loras ({self.max_loras}).' "
            "(LoRAConfig._validate_lora_config, "
            "vllm/config/lora.py:124; vllm 0.14.1-0.33.0 check it)",
        )
    ]
    assert rs032("vllm serve /m --enable-lora --max-loras 2 --max-cpu-loras 4", tmp_path, *v("0.33.0")) == []


@pytest.mark.parametrize(
    "command",
    [
        # the index misses the guard `if not cfg.enable_int8_mamba_checkpoint: return` before the raise:
        # a test of one setting whose message names another is not judged
        "python -m sglang.launch_server --model-path /m --enable-hierarchical-cache",
        "python -m sglang.launch_server --model-path /m --enable-hierarchical-cache "
        "--enable-int8-mamba-checkpoint",
        # tests read --moe-a2a-backend only, behind `if not cfg.enable_lora: return` (lora_hook.py): the
        # message names two options, the tests read one: not judged
        "python -m sglang.launch_server --model-path /m --moe-a2a-backend deepep "
        "--moe-runner-backend deep_gemm",
        # UNO's checks sit behind `if algorithm != UNO: return`: one setting, not judged
        "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE "
        "--speculative-draft-model-path /d",
    ],
)
def test_rs032_judges_only_a_refused_combination(command: str, tmp_path: Path) -> None:
    assert rs032(command, tmp_path, *v("0.5.23")) == []


def test_rs032_reads_a_vllm_config_field_as_an_option_only_in_its_own_class(tmp_path: Path) -> None:
    """SpeculativeConfig._verify_args refuses its own ``tensor_parallel_size`` key; the index maps
    ``self.tensor_parallel_size`` to --tensor-parallel-size, which belongs to ParallelConfig: not judged (it
    was, for every MTP recipe, before the option's config class was compared)."""
    command = 'vllm serve /m -tp 4 --speculative-config \'{"method":"mtp","num_speculative_tokens":1}\''
    assert rs032(command, tmp_path, *v("0.33.0")) == []


# --- PA011: a JSON value that is not JSON fails on every release, whichever converter takes it --------------


@pytest.mark.parametrize(
    ("value", "kept_fails", "refused"),
    [
        ("{architectures:", True, True),  # 0.6-0.8 json.loads refuses; 0.9+ keeps a string: fails later
        ("{architectures:", False, False),  # argparse alone refuses it on 0.6-0.8 only
        ('{"architectures": ["X"]}', True, False),  # JSON: taken
    ],
)
def test_a_kept_json_string_fails_on_every_release(value: str, kept_fails: bool, refused: bool) -> None:
    from argtrace.layers.parser.releases import refused_by_every_release

    assert (
        refused_by_every_release("vllm", "--hf-overrides", value, kept_json_string_fails=kept_fails)
        is refused
    )


# --- `argtrace why` on the error text a report quotes -----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str | None
    settings: tuple[str, ...]
    klass: str  # a / b / c, by why alone


WHY_9 = [
    Why(
        "https://github.com/sgl-project/sgl-project.github.io/issues/17",
        "launch_server.py: error: argument --tool-call-parser: invalid choice: 'llama4' (choose from "
        "'qwen25', "
        "'mistral', 'llama3', 'deepseekv3', 'pythonic')",
        "ArgumentParser._check_value",
        ("tool_call_parser",),
        "a",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/31480",
        "ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
        "dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=None, use_mla=True, has_sink=False, "
        "use_sparse=True, use_mm_prefix=False, attn_type=decoder). Reasons: {FLASH_ATTN_MLA: [sparse not "
        "supported, compute capability not supported, FlashAttention MLA not supported on this device], "
        "FLASHMLA: [sparse not supported, compute capability not supported, FlashMLA Sparse is only "
        "supported "
        "on Hopper and Blackwell devices.], FLASHINFER_MLA: [sparse not supported, compute capability not "
        "supported], TRITON_MLA: [sparse not supported], FLASHMLA_SPARSE: [compute capability not "
        "supported]}.",
        "CudaPlatformBase.get_attn_backend_cls",
        ("attention_backend",),
        "a",
    ),
    Why(
        "https://github.com/verl-project/verl/issues/7624",
        "ValidationError: 1 validation error for SchedulerConfig\n  Value error, max_num_batched_tokens "
        "(8192) "
        "is smaller than max_model_len (131072). This effectively limits the maximum sequence length to "
        "max_num_batched_tokens and makes vLLM reject longer sequences. Please increase "
        "max_num_batched_tokens "
        "or decrease max_model_len.",
        "SchedulerConfig.verify_max_model_len",
        ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"),
        "a",
    ),
    Why(
        "https://github.com/zai-org/GLM-V/issues/15",
        "Value error, `limit_mm_per_prompt` is only supported for multimodal models. [type=value_error, "
        "input_value=ArgsKwargs((), {'model': ..., 'model_impl': 'auto'}), input_type=ArgsKwargs]",
        "ModelConfig._init_multimodal_config",
        ("limit_mm_per_prompt",),
        "b",
    ),
    Why(
        "https://github.com/LMCache/LMCache/issues/638",
        "ERROR 05-13 08:41:45 [engine.py:598] Unsupported connector type: LMCacheConnectorV1",
        # was ECConnectorFactory.get_connector_class (the encoder cache's twin raise, newest file first);
        # --kv-transfer-config raises it in every release --ec-transfer-config does and more
        # (commands/why_context.py)
        "KVConnectorFactory.get_connector_class",
        ("kv_transfer_config",),
        "b",
    ),
    Why(
        "https://github.com/sgl-project/sglang/issues/12360",
        "ValueError: The 'fa3' backend is not supported on Blackwell GPUs",
        "VisionAttention._determine_attention_backend",
        ("mm_attention_backend",),
        "a",
    ),
    Why(
        "https://github.com/sgl-project/sglang/issues/13999",
        "Cannot find corresponding multimodal processor for model type clip_vision_model",
        "LlavaMultimodalProcessor._get_sgl_processor_cls",
        (),
        "b",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/40153",
        "ValueError: Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. "
        "Reason: ['sink setting not supported']",
        "CudaPlatformBase.get_attn_backend_cls",
        ("attention_backend",),
        "a",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/22331",
        "AssertionError: Sinks are only supported in FlashAttention 3",
        "FlashAttentionImpl.__init__",
        ("attention_backend",),
        "a",
    ),
    # framework bugs: the site of the raise, and the backend flag as a workaround, not the cause (class c)
    Why(
        "https://github.com/vllm-project/vllm/issues/30919",
        "NotImplementedError: FlashInfer backend currently does not support attention sinks",
        "FlashInferMetadataBuilder.__init__",
        ("attention_backend",),
        "c",
    ),
    Why(
        "https://github.com/vllm-project/vllm/pull/30195",
        "ValueError: Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. "
        "Reason: ['kv_cache_dtype not supported', 'sparse not supported']",
        "CudaPlatformBase.get_attn_backend_cls",
        ("attention_backend",),
        "c",
    ),
    Why(
        "https://github.com/vllm-project/vllm/pull/23200",
        "ValueError: CUDAGraphMode.FULL is not supported with CutlassMLAMetadataBuilder backend (support: "
        "AttentionCGSupport.NEVER); please try cudagraph_mode=PIECEWISE, and make sure compilation level is "
        "piecewise",
        "GPUModelRunner.initialize_cudagraph_capture",
        (),
        "c",
    ),
    # no site, or another framework's: the text is not the framework's (a shell error, a package's)
    Why(
        "https://github.com/vllm-project/vllm/issues/14192",
        "--hf_overrides: command not found",
        # was gen_sgl_trtllm_gen_fused_moe_sm100_module ("{header} not found", 8 characters); now bash's
        # message, the flag run as a command, `argtrace check SCRIPT` (commands/why_shell.py)
        None,
        (),
        "b",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/11986",
        "TypeError: Worker.__init__() got an unexpected keyword argument 'kv_cache_dtype'",
        # was rank_consensus (SGLang's own "got unexpected keyword argument(s)"); now Python's TypeError at
        # a call to Worker.__init__, caller and callee of releases that do not fit (commands/why_call.py)
        None,
        (),
        "b",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/16339",
        "TypeError: LLMatcher.validate_grammar() got some positional-only arguments passed as keyword "
        "arguments: 'tokenizer'",
        # no site before and after; now Python's TypeError at a call to LLMatcher.validate_grammar: caller and
        # callee of releases that do not fit (llguidance older than vLLM's call; commands/why_call.py)
        None,
        (),
        "b",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_9, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_9_why_first_site(case: Why) -> None:
    matches = explain(case.text)["matches"]
    first = matches[0] if matches else None
    got = (first["function"], tuple(s["name"] for s in first["settings"])) if first else (None, ())
    assert got == (case.function, case.settings)


def test_vllm14192_why_says_the_shell_ran_the_flag_as_a_command() -> None:
    section = explain("--hf_overrides: command not found")
    assert (section["origin"]["origin"], section["shell"]["flag"]) == (
        "the shell (bash): not found",
        "--hf_overrides",
    )
    assert section["shell"]["fix"].startswith(
        "end the line before --hf_overrides with a `\\` and nothing after it"
    )


def test_vllm11986_and_16339_why_name_the_callee_of_python_s_type_error() -> None:
    calls = [explain(case.text)["call"] for case in WHY_9[-2:]]
    assert [(c["kind"], c["callee"], c["argument"]) for c in calls] == [
        ("unexpected keyword", "Worker.__init__", "kv_cache_dtype"),
        ("positional-only as keyword", "LLMatcher.validate_grammar", "tokenizer"),
    ]
    assert calls[1]["fix"] == (
        "the caller and LLMatcher.validate_grammar come from releases that do not fit: install the releases "
        "of the two packages that go together (the caller's release names the one it needs), or the build "
        "whose own code makes the call"
    )


def test_sglang_docs17_why_says_no_release_lists_llama4() -> None:
    first = explain(WHY_9[0].text)["matches"][0]
    assert first["fix"].startswith(
        "'llama4' is not a choice of --tool-call-parser in any bundled sglang release (0.4.2.post4-0.5.23); "
        "the choices printed are those of sglang 0.4.6.post5-0.4.8.post1; --tool-call-parser's choices in "
        "sglang 0.5.23: "
    )


def test_vllm31480_why_says_no_launch_setting_changes_the_gpu() -> None:
    first = explain(WHY_9[1].text)["matches"][0]
    assert (
        "FlashMLA Sparse is only supported on Hopper and Blackwell devices.' when not "
        "(current_platform.is_device_capability_family(90) or "
        "current_platform.is_device_capability_family(100)) "
        "(the GPU's compute capability or platform: no launch setting changes that)"
    ) in first["fix"]


def test_vllm40153_why_names_the_flag_that_forced_the_backend() -> None:
    first = explain(WHY_9[7].text)["matches"][0]
    assert first["fix"].endswith(
        "; the backend that raised is the one --attention-backend (vllm 0.13.0 on; VLLM_ATTENTION_BACKEND "
        "before) picked, or the one chosen for this GPU and model when none was given: choose another "
        "backend with --attention-backend, or drop a forced one so that the selector chooses"
    )


def test_a_gpu_probe_helper_is_not_a_backends_own_check() -> None:
    """get_flash_attn_version probes the GPU for every backend (vllm#14016's 2080 Ti): no setting."""
    first = explain(
        "Cannot use FA version 2 is not supported due to FA3 is only supported on devices with compute "
        "capability >= 8 excluding 8.6 and 8.9"
    )["matches"][0]
    assert (first["function"], first["settings"]) == ("get_flash_attn_version", [])


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_9_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_9_case_file_is_used() -> None:
    used = [launch.file for launch in (*LAUNCHES.values(), *CORRECT.values())]
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)
