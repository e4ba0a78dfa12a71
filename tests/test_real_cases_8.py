"""The eighth batch of real failure reports (docs/real_cases.md, "Eighth batch"), measured before any fix.

Each case under ``tests/data/real_cases_8/`` is our reconstruction of a launch (command, script, ``docker
run``) posted in a public issue; its header names the URL. The machine is a new user's (no resolver
environment, no Hugging Face cache); the release is passed only when the report names it. A miss is a strict
``xfail`` whose reason names the mechanism, so a change that alters the outcome turns the test red. ``why``
cases take the error text the report quotes; five reports quote only an error text. The five correct
launches collected with this batch are in the false-alarm gate (``tests/data/false_alarms/``: vllm#34552,
vllm#29036, sglang#10407, vllm#47761, vllm#7714).
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

CASES = Path(__file__).resolve().parent / "data" / "real_cases_8"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


LAUNCHES = {
    "dynamo3161": Launch("dynamo3161_metrics_endpoint_port.cmd"),
    "hyperloom462": Launch("hyperloom462_attention_backend_env.sh", v("0.21.0")),
    "recipes20": Launch("recipes20_tool_server_rocm_image.cmd"),
    "sglang20493": Launch("sglang20493_modelopt_fp8_deepseekv2.sh", v("0.5.9")),
    "sparkvllm111": Launch("sparkvllm111_launch_cluster_spec_config.sh"),
    "vllm18888": Launch("vllm18888_flashmla_fp8_kv.sh", v("0.8.5")),
    "vllm20944": Launch("vllm20944_fully_sharded_loras_rank8.cmd"),
    "vllm26431": Launch("vllm26431_minimax_fp8_a100.cmd"),
    "vllm32626": Launch("vllm32626_trtllm_attn_dp_ep.sh"),
    # the PR's log names the GPU, a V100: --gpu as a new user would pass it (the image tag names 0.16.0)
    "vllm35720": Launch("vllm35720_docker_fp8_kv_v100.sh", ("--gpu", "v100")),
    "vllm39809": Launch("vllm39809_nemotronh_mtp_prefix_cache.cmd", v("0.19.0")),
    "vllm42587": Launch("vllm42587_kv_cache_dtype_bfloat16.cmd", v("0.14.1")),
    "vllm4327": Launch("vllm4327_fp8_quant_cc86.sh"),
    "vllm57713": Launch("vllm57713_glm_fp8_kv_mla_hopper.sh"),
    "vllmgb10_7": Launch("vllmgb10_7_max_model_len_qwen3_32b.cmd", v("0.20.0")),
}

# --- class a by `check`: the root cause and a correct fix on the first screen ------------------------------

FOUND_8 = {
    # dynamo.vllm hands what Dynamo's own options do not take to vLLM's parser; no Dynamo release read
    # (0.4.0-1.6.1) nor vLLM release takes it: refused, as the report's "unrecognized arguments"
    "dynamo3161": (
        "PA001",
        "warning",
        '--metrics-endpoint-port is not a vllm 0.33.0 flag: the server refuses to start ("unrecognized '
        'arguments", exit 2)',
        "remove the flag (no vllm 0.33.0 flag is spelled like it)",
    ),
    # was b (2026-12-02, before any change): the fix said "remove VLLM_ATTENTION_BACKEND", which drops the
    # backend the user asked for; the report's fix is the flag (layers/process_unread._moved_to_flag)
    "hyperloom462": (
        "PR001",
        "warning",
        "VLLM_ATTENTION_BACKEND is read by vllm 0.6.6.post1, 0.7.3, 0.8.5.post1, 0.9.2, 0.10.2, 0.11.0, "
        "0.11.2, "
        "0.12.0, 0.13.0, 0.14.1 but not by vllm 0.21.0: the release ignores it; vllm 0.21.0 takes the "
        "setting "
        "as the flag of the same name, --attention-backend (assumed from the name)",
        "remove VLLM_ATTENTION_BACKEND and pass --attention-backend FLEX_ATTENTION",
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND_8))
def test_batch_8_the_root_cause_is_named(name: str) -> None:
    report = check(LAUNCHES[name])
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)] == [FOUND_8[name]]


# --- misses: no error or warning names the root cause -------------------------------------------------------


MODEL_CONFIG = "needs the model's config.json, not on a new user's machine"
GPU = "the GPU is not in the command (no --gpu the report allows), and the check is a kernel's, not a flag's"
UNSET = "the report does not show where the script's variables are set: as posted they are empty here"
WRAPPER = (
    "argtrace does not follow the wrapper (SH040, a warning about argtrace's own reach, true of the file)"
)

MISSED_8 = [
    Missed(
        "recipes20",
        "the image's vLLM build (rocm/vllm-dev:open-mi300-08052025) has no --tool-server; the image is not "
        "in "
        "the command, and the release analysed (0.33.0, no release named) takes it; `why` says the refusing "
        "release is not one of 0.10.2-0.33.0 (class a by why)",
    ),
    Missed(
        "sglang20493",
        f"DeepSeek-V2 quantized to FP8 by ModelOpt does not load in SGLang 0.5.9: the model's support, "
        f"{MODEL_CONFIG}; the error is a screenshot. {UNSET} ($PORT: SH026, and PA010 on the empty value)",
        besides=("SH026", "PA010"),
    ),
    Missed(
        "sparkvllm111",
        f"the wrapper's new quoting (launch-cluster.sh): {WRAPPER}; class a by why",
        ("SH040",),
    ),
    Missed(
        "vllm18888",
        "0.8.5's FlashMLA backend (V1) has no FP8 KV cache: the backend follows the model (MLA, config.json) "
        "and the GPU; `why` names FlashMLAImpl.__init__ and --kv-cache-dtype (class a by why)",
        besides=("PR008",),
    ),
    Missed(
        "vllm20944",
        "--fully-sharded-loras with --max-lora-rank 8 on V1: the maintainer reads the trace as a rank too "
        "small for the kernels; no start-up check of the flags refuses it",
    ),
    Missed(
        "vllm26431",
        f"MiniMax-M2.7's FP8 weights need Triton's fp8e4nv (SM89+) on an A100: {GPU}; class a by why",
    ),
    Missed("vllm32626", f"TRTLLM attention with DP+EP: {FRAMEWORK_BUG}; {WRAPPER}", besides=("SH040",)),
    Missed(
        "vllm35720",
        "an fp8 KV cache on a V100 crashes 0.16.0 in Triton's fp8e4nv compile; RS030 follows the raise "
        "0.24.0-0.33.0 have (TritonAttentionImpl.__init__), 0.16.0 has no such raise in the message index",
    ),
    Missed(
        "vllm39809", f"prefix caching with MTP on NemotronH in 0.19.0: {FRAMEWORK_BUG}", besides=("PR008",)
    ),
    Missed(
        "vllm42587",
        "0.14.1's CLI takes --kv-cache-dtype bfloat16 and the engine crashes at init for it: the attention "
        "backend's support, not the parser's",
    ),
    Missed(
        "vllm4327",
        f"fp8 quantization needs capability 9.0 in that release, the GPUs are 8.6: {GPU}; `why` names "
        "_get_quantization_config and --quantization (class a by why)",
    ),
    Missed(
        "vllm57713",
        f"the MLA backend on Hopper takes no FP8 KV cache for this model (a bug); {UNSET} (SH026, PA010, "
        "PA011 on the empty values)",
        besides=("SH026", "PA010", "PA011"),
    ),
    Missed(
        "vllmgb10_7",
        f"--max-model-len 131072 is over Qwen3-32B's max_position_embeddings (40960): {MODEL_CONFIG}",
        besides=("PR008",),
    ),
]


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_8]
)
def test_batch_8_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case
    found = alarms(check(LAUNCHES[case.name]))
    assert [f for f in found if f["code"] not in case.besides] != []


def test_batch_8_the_misses_raise_no_other_alarm() -> None:
    """Class d is a wrong error or warning: the misses raise none besides the listed ones. Before
    2026-12-02's fix two did: RS031 on vllm4327's `--model=llama3-70B/` (a directory as the shell completes
    it) and on recipes20's `...` (the report's elision)."""
    got = {}
    for case in MISSED_8:
        codes = sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))})
        if codes:
            got[case.name] = codes
    assert got == {
        "sglang20493": ["PA010", "SH026"],
        "vllm57713": ["PA010", "PA011", "SH026"],
    }


# --- class d before 2026-12-02, fixed: RS031 on a directory written with its slash, and on an elision -------


def rs031(command: str, tmp_path: Path) -> list[str]:
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command], cwd=tmp_path)
    return [f["severity"] for f in result.json["findings"] if f["code"] == "RS031"]


@pytest.mark.parametrize(
    ("command", "severity"),
    [
        # the reports' values: a relative directory as the shell completes it, an elision
        ("python -m vllm.entrypoints.openai.api_server --model=llama3-70B/ --quantization fp8", None),
        ("vllm serve ... --tool-server demo", None),
        ("python3 -m sglang.launch_server --model-path models/qwen/", None),
        ("vllm serve org/\u2026", None),
        # still judged: a value shaped like neither, that validate_repo_id refuses
        ("vllm serve llama3-70B:main", "warning"),
        ("vllm serve org/my--model", "warning"),
    ],
)
def test_rs031_a_directory_or_an_elision_is_not_a_repo_id(
    command: str, severity: str | None, tmp_path: Path
) -> None:
    assert rs031(command, tmp_path) == ([severity] if severity else [])


# --- b -> a: a variable a release ignores whose setting is now a flag of the same name ---------------------


@pytest.mark.parametrize(
    ("command", "release", "fix"),
    [
        (
            "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve Qwen/Qwen3-30B-A3B -dp 2 "
            "--enable-expert-parallel",
            "0.21.0",
            "remove VLLM_ALL2ALL_BACKEND and pass --all2all-backend deepep_low_latency",
        ),
        (
            "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-8B --attention-backend FLASHINFER",
            "0.21.0",
            "remove VLLM_ATTENTION_BACKEND: the launch already passes --attention-backend",
        ),
        # a variable whose setting has no flag of its name: removing it is the whole fix
        ("VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B", "0.33.0", "remove VLLM_USE_V1"),
    ],
)
def test_pr001_names_the_flag_a_variable_moved_to(
    command: str, release: str, fix: str, tmp_path: Path
) -> None:
    result = run_cli(["check", "--format", "json", "--no-resolve", *v(release), "-c", command], cwd=tmp_path)
    got = [f["fix"] for f in result.json["findings"] if f["code"] == "PR001"]
    assert got == [fix]


# --- `argtrace why` on the error text a report quotes -----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str
    settings: tuple[str, ...]


WHY_8 = [
    # class a: the site and the settings that fix it
    Why(
        "https://github.com/vllm-project/vllm/issues/2847",
        "ValueError: LoRA rank 64 is greater than max_lora_rank 16.",
        "WorkerLoRAManager._load_adapter",
        ("max_lora_rank",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/10483",
        "speculative_draft_tensor_parallel_size=4 cannot be other value than 1",
        "SpeculativeConfig.create_draft_parallel_config",
        ("speculative_draft_tensor_parallel_size", "tensor_parallel_size"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/8409",
        "ValueError: fp8_e5m2 kv-cache is not supported with fp8 checkpoints.",
        "_init_kv_cache_quant",
        ("kv_cache_dtype",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/18888",
        "FlashMLA V1 with FP8 KV cache not yet supported!",
        "FlashMLAImpl.__init__",
        ("kv_cache_dtype",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/4327",
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: "
        "90. "
        "Current capability: 86.",
        "VllmConfig._get_quantization_config",
        ("quantization",),
    ),
    Why(
        "https://github.com/vllm-project/recipes/issues/20",
        "vllm: error: unrecognized arguments: --tool-server demo",
        "FlexibleArgumentParser.parse_args",
        ("tool_server",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/26431",
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "dtype.to_ir",
        ("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
    ),
    # was b (the first site an api_server check, no release said); since why_choice: the releases whose own
    # list holds the value
    Why(
        "https://github.com/zai-org/GLM-4.5/issues/58",
        "vllm serve: error: argument --tool-call-parser: invalid choice: 'glm45' (choose from 'deepseek_v3', "
        "'glm4_moe', 'granite-20b-fc', 'granite', 'hermes', 'hunyuan_a13b', 'internlm', 'jamba', 'kimi_k2', "
        "'llama4_pythonic', 'llama4_json', 'llama3_json', 'minimax', 'mistral', 'phi4_mini_json', "
        "'pythonic', "
        "'qwen3_coder', 'xlam')",
        "ArgumentParser._check_value",
        ("tool_call_parser",),
    ),
    # was b (the site, "change --speculative-config", while the JSON was right); since why_value: the value
    # still holds backslashes, a layer's quoting
    Why(
        "https://github.com/eugr/spark-vllm-docker/issues/111",
        'vllm serve: error: argument --speculative-config: Value \\{\\"method\\":\\"qwen3_next_mtp\\"\\,'
        '\\"num_speculative_tokens\\":2\\} cannot be converted to <function loads at 0xe67c60da6a20>.',
        "parse_type._parse_type",
        ("speculative_config",),
    ),
    # was c (the first site SGLang's diffusion parser: `__main__.py` names no entry point); since
    # why_unrecognized reads Dynamo's option table for a `python -m` launcher: no release read takes it
    Why(
        "https://github.com/ai-dynamo/dynamo/issues/3161",
        "__main__.py: error: unrecognized arguments: --metrics-endpoint-port 8001",
        "ArgumentParser.parse_args",
        (),
    ),
    # was b (the site, no setting); since why_quant: --quantization, with the value the text's other config
    # class corresponds to (the maintainer's fix: --quantization modelopt_fp4)
    Why(
        "https://github.com/sgl-project/sglang/issues/14285",
        "ValueError: ModelOptFp8Config only supports static FP8 quantization in SGLang. For FP4 "
        "quantization, "
        "use ModelOptFp4Config. Check the quantization config for your model's configuration.",
        "ModelOptFp8Config.from_config",
        ("quantization",),
    ),
]


@pytest.mark.parametrize(
    "case", WHY_8, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_8_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    assert (first["function"], tuple(s["name"] for s in first["settings"])) == (case.function, case.settings)


def test_glm45_58_why_says_which_releases_list_the_value() -> None:
    # vLLM lists --tool-call-parser's values in its metavar ({a,b,...}), not in choices: why_choice reads both
    first = explain(WHY_8[7].text)["matches"][0]
    assert first["fix"].startswith(
        "'glm45' is a choice of --tool-call-parser in vllm 0.10.2-0.33.0: the release that refused it is not "
        "one of them; use one of those releases, or a choice the running release lists; "
        "--tool-call-parser's choices in vllm 0.33.0: apertus, "
    )


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        (
            "launch_server.py: error: argument --attention-backend: invalid choice: 'fa9' (choose from "
            "'triton', 'flashinfer')",
            "'fa9' is not a choice of --attention-backend in any bundled sglang release "
            "(0.4.0.post2-0.5.23); --attention-backend's choices in sglang 0.5.23: triton, ",
        ),
        (
            "api_server.py: error: argument --kv-cache-dtype: invalid choice: 'fp8_e4m3' (choose from "
            "'auto', 'fp8')",
            "'fp8_e4m3' is a choice of --kv-cache-dtype in vllm 0.6.6.post1-0.32.0: the release that refused "
            "it is not one of them; use one of those releases, or a choice the running release lists; ",
        ),
    ],
)
def test_why_reads_who_lists_an_invalid_choice(text: str, fix: str) -> None:
    first = explain(text)["matches"][0]
    assert first["function"] == "ArgumentParser._check_value" and first["fix"].startswith(fix), first["fix"]


def test_sglang14285_why_names_the_quantization_value_the_text_points_to() -> None:
    first = explain(WHY_8[10].text)["matches"][0]
    assert first["fix"] == (
        "make the condition false ('FP8' not in quant_method); the method that raised is the one "
        "--quantization (or the checkpoint's quantization config) selected; the text points to "
        "ModelOptFp4Config, which --quantization modelopt_fp4 selects (assumed from the class name): change "
        "--quantization to modelopt_fp4"
    )


def test_a_quantization_method_check_names_quantization_and_keeps_its_own_settings() -> None:
    """A quantization module's raise with no setting of its own gets --quantization; one that reads a server
    argument keeps it (AWQ's shape check is --tensor-parallel-size's)."""
    xpu = explain("XPU AWQ requires vllm-xpu-kernels. Please install it with: pip install vllm-xpu-kernels")
    first = xpu["matches"][0]
    assert ([s["name"] for s in first["settings"]], first["fix"].rsplit(": ", 1)[-1]) == (
        ["quantization"],
        "change --quantization",
    )
    awq = explain(
        "The input size is not aligned with the quantized weight shape. This can be caused by too large "
        "tensor parallel size."
    )["matches"][0]
    assert [s["name"] for s in awq["settings"]] == ["tensor_parallel_size"]


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        (
            "__main__.py: error: unrecognized arguments: --metrics-endpoint-port 8001",
            "--metrics-endpoint-port is taken by no Dynamo worker launcher release read (0.4.0-1.6.1), nor "
            "by any bundled SGLang or vLLM release: remove it",
        ),
        (
            "__main__.py: error: unrecognized arguments: --durable-kv-events",
            "--durable-kv-events is an option of dynamo.sglang of Dynamo 1.0.0-1.3.1; dynamo.vllm of Dynamo "
            "1.0.0-1.3.1: the Dynamo release that refused it is not one of them",
        ),
    ],
)
def test_why_places_a_python_m_launchers_refused_word_by_dynamos_table(text: str, fix: str) -> None:
    first = explain(text)["matches"][0]
    assert (first["framework"], first["fix"]) == ("dynamo", fix)


def test_spark111_why_says_the_value_still_holds_its_quoting() -> None:
    first = explain(WHY_8[8].text)["matches"][0]
    assert first["quoting"] == (
        'the value reached the parser with backslashes still in it (\\" \\, \\{ \\}): a layer between the '
        "shell "
        "and the server (a wrapper that re-quotes the words it forwards, `bash -c`, `ssh`, a container "
        "runtime) "
        "escaped them once more than was removed; give the server the JSON as one word with no backslashes "
        "(single-quoted where a shell reads it), or fix the layer's quoting"
    )


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (
            '\'{"method":"mtp"}\'',
            "the value still holds the ' quotes around it: they were part of the word (quoted twice, or put "
            "inside a variable or printf format); drop the inner quotes",
        ),
        ("{method:mtp}", None),  # a JSON mistake, not quoting: the wrapper site's own fix stands
    ],
)
def test_why_reads_the_quoting_of_a_refused_value(value: str, said: str | None) -> None:
    from argtrace.commands.why_value import quoting_left_in

    text = (
        f"vllm serve: error: argument --speculative-config: Value {value} cannot be converted to "
        "<function loads>."
    )
    assert quoting_left_in(text) == said


def test_vllm57713_why_says_the_wrapper_only_reports_the_inner_error() -> None:
    """Was: the executor's wrapper first with "change --enable-fault-tolerance" (its own condition). Now
    the wrapper says the inner message is the cause; FlashInfer's check is not indexed: no site (c)."""
    first = explain(WHY_MISSED_8[0].text)["matches"][0]
    assert first["fix"] == (
        "this only reports another error, the cause: 'MLA kv_data_type torch.uint8 is not supported. "
        "Supported dtypes: [torch.float16, torch.bfloat16, torch.float8_e4m3fn].'; no indexed site raises "
        "that text (a library's own check, or a release not read): its settings are not "
        "MultiprocExecutor.collective_rpc.get_response's"
    )


def test_a_wrapped_error_sharing_a_phrase_with_a_site_is_not_put_on_that_site() -> None:
    # not the report: an inner message that shares only "is not supported. Supported dtypes" with vLLM's
    # ROCm dtype check (a dense run of 5 words, score 0.95) is no site of that check
    text = (
        "RuntimeError: Worker failed with error 'Sliding window attention kv layout NHD is not supported. "
        "Supported dtypes: [torch.float16, torch.bfloat16].', please check the stack trace above for the "
        "root cause"
    )
    first = explain(text)["matches"][0]
    assert (first["function"], first["fix"].split(":")[0]) == (
        "MultiprocExecutor.collective_rpc.get_response",
        "this only reports another error, the cause",
    )


def test_a_wrapped_error_with_an_indexed_site_puts_that_site_first() -> None:
    text = (
        "RuntimeError: Worker failed with error 'ValueError: LoRA rank 64 is greater than max_lora_rank "
        "16.', please check the stack trace above for the root cause"
    )
    first = explain(text)["matches"][0]
    assert (first["function"], [s["name"] for s in first["settings"]], first["reported_by"]) == (
        "WorkerLoRAManager._load_adapter",
        ["max_lora_rank"],
        "MultiprocExecutor.collective_rpc.get_response",
    )


@dataclass(frozen=True)
class WhyMissed:
    url: str
    text: str
    function: str | None
    why: str


WHY_MISSED_8 = [
    WhyMissed(
        "https://github.com/vllm-project/vllm/issues/57713",
        "RuntimeError: Worker failed with error 'MLA kv_data_type torch.uint8 is not supported. Supported "
        "dtypes: [torch.float16, torch.bfloat16, torch.float8_e4m3fn].', please check the stack trace above "
        "for "
        "the root cause",
        "MultiprocExecutor.collective_rpc.get_response",
        "the inner message is FlashInfer's (not indexed): the first site is the executor's wrapper, whose "
        "setting (--enable-fault-tolerance) is not the cause",
    ),
    WhyMissed(
        "https://github.com/timothystewart6/vllm-gb10/issues/7",
        "Assertion `index out of bounds: 0 <= tmp16 < 40960` failed.",
        None,
        "a compiled kernel's assert: no framework site",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_MISSED_8, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_8_why_first_site_is_not_the_cause(case: WhyMissed) -> None:
    """Class c by `why`: its first site is another check (the function asserted is that other check)."""
    matches = explain(case.text)["matches"]
    assert (matches[0]["function"] if matches else None) == case.function


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_8_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_8_case_file_is_used() -> None:
    assert sorted(p.name for p in CASES.iterdir()) == sorted(launch.file for launch in LAUNCHES.values())
