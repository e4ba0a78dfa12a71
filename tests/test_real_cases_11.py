"""The eleventh batch of real failure reports (docs/real_cases.md, "Eleventh batch"), measured before any fix.

Launches of 2025-2026 whose failure is in the launch as published: recipes (a backslash followed by a space,
a multimodal encoder budget above the default batch, the default max_num_seqs against a hybrid model's Mamba
blocks), downstream manifests, a Helm chart and READMEs (a single-hyphen flag, removed flags, `sh -c` with
the command split into words, probes on a port vLLM does not listen on, a chat template the image no longer
holds, a second worker on the first one's ZMQ port, an image whose ENTRYPOINT takes the words after it), an
fp16 dtype Gemma 3 refuses, a LoRA adapter with lm_head weights, and three framework bugs. Each case
under ``tests/data/real_cases_11/`` is our reconstruction of a launch posted in a public issue, pull request
or file; its header names the URL. The machine is a new user's (no resolver environment, no Hugging Face
cache); the release is passed only when the report names it (vllm-ascend's v0.18.rc1 image as vLLM 0.18.0),
the GPU only when it names the GPU. A miss is a strict ``xfail`` whose reason names the mechanism, so a change
that alters the outcome turns the test red. ``why`` cases take the error text the report quotes. The five
correct launches collected with this batch (``ok_*``) raise no error or warning but one true finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_unrecognized import BLANK_WORD
from tests.batches import recorded_check
from tests.conftest import FRAMEWORK_BUG, Launch, Missed, alarms, run_cli, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_11"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


LAUNCHES = {
    "recipes167": Launch("recipes167_glmv_backslash_space.sh"),
    "gaie2487": Launch("gaie2487_single_dash_max_model_len.yaml"),
    "recipes441": Launch("recipes441_gemma4_26b_mm_budget.cmd", ("--gpu", "a100-80g")),
    "recipes551": Launch("recipes551_qwen36_27b_fp8_default_max_num_seqs.cmd", ("--gpu", "h100")),
    "kvcached270": Launch("kvcached270_readme_disable_log_requests.cmd"),
    "tpuinference1230": Launch("tpuinference1230_guided_decoding_backend.sh"),
    "hyperloom837": Launch("hyperloom837_entrypoint_tail.cmd"),
    "vllm32599": Launch("vllm32599_lora_lm_head_adapter.cmd"),
    "llmscaler270": Launch("llmscaler270_gemma3_float16.cmd", v("0.11.2")),
    "opea1808": Launch("opea1808_chat_template_not_in_image.yaml"),
    "sglang21272": Launch("sglang21272_eagle_with_eagle3_draft.cmd"),
    "sgldiffrouting16": Launch("sgldiffrouting16_second_worker_port.sh"),
    "vllm18986": Launch("vllm18986_ipv6_dp_headless.sh"),
    "vllm7196": Launch("vllm7196_two_servers_rpc_port.sh", v("0.5.4")),
    "vllmascend8511": Launch("vllmascend8511_glm46v_glued_values.cmd", v("0.18.0")),
    "castai737": Launch("castai737_sh_c_vllm_serve.yaml"),
    "castai739": Launch("castai739_probe_port_8080.yaml"),
}

CORRECT = {
    "ok_dynamo8693_qwen3_32b_disagg_kv_router": Launch("ok_dynamo8693_qwen3_32b_disagg_kv_router.yaml"),
    "ok_recipes441_gemma4_26b_batched_tokens": Launch(
        "ok_recipes441_gemma4_26b_batched_tokens.cmd", ("--gpu", "a100-80g")
    ),
    "ok_recipes551_qwen36_27b_fp8_max_num_seqs_512": Launch(
        "ok_recipes551_qwen36_27b_fp8_max_num_seqs_512.cmd", ("--gpu", "h100")
    ),
    "ok_sgldiffrouting16_worker_ports": Launch("ok_sgldiffrouting16_worker_ports.sh"),
}

# vLLM 0.15.1 reads no VLLM_USE_V1 (the V0 engine is gone): a note on the fixed manifest too. It was a
# warning until fa35: "1" is the default of 0.11.0, the last release that reads it, so forcing V1 on asks for
# nothing 0.15.1 does not do (layers/process_unread.py, _asks_the_default)
USE_V1 = (
    "PR001",
    "info",
    "VLLM_USE_V1 is read by vllm 0.6.6.post1, 0.7.3, 0.8.5.post1, 0.9.2, 0.10.2, 0.11.0 but not by vllm "
    "0.15.1: the release ignores it; 1 is its default in vllm 0.11.0 (vllm/envs.py:900), the last release "
    "that reads it: the launch asks for no more than that release did without it",
    "remove VLLM_USE_V1",
)


def use_v1(report: dict[str, Any]) -> tuple[str, str, str, str | None]:
    (f,) = [f for f in report["findings"] if f["code"] == "PR001"]
    return (f["code"], f["severity"], f["message"], f["fix"])


def found(report: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    return [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)]


# --- class a by `check`: the root cause and a correct fix on the first screen (both on first sight) --------


def test_recipes167_the_backslash_space_is_the_one_cause() -> None:
    """The recipe's `--mm-encoder-tp-mode data \\ ` line: the shell passes ' ' to vLLM and runs the next
    line (`--mm_processor_cache_type ...`) as a command; the PR quotes both messages. SH003 is the cause,
    the parser's refusal of ' ' and shellcheck's SC2215 its consequences."""
    report = check(LAUNCHES["recipes167"])
    causes = [
        (f["code"], f["severity"], [c["code"] for c in f.get("consequences", [])]) for f in alarms(report)
    ]
    assert causes[:1] == [("SH003", "error", ["SC2215", "PA001"])]
    sh003 = alarms(report)[0]
    assert sh003["message"] == (
        "space after the line-continuation backslash at the end of line 10: the command ends on line 10 with "
        "an extra argument `' '`, and line 11 runs as a separate command; the flags after it never reach the "
        "server"
    )
    assert sh003["fix"] == (
        "Delete the blanks after the backslash at the end of recipes167_glmv_backslash_space.sh line 10, so "
        "that `\\` is the last character of the line."
    )
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == ["SH003"]


def test_gaie2487_names_the_single_hyphen() -> None:
    report = check(LAUNCHES["gaie2487"])
    assert use_v1(report) == USE_V1
    assert found(report) == [
        (
            "PA015",
            "error",
            "-max-model-len has a single hyphen; vllm 0.15.1 knows --max-model-len and rejects "
            '-max-model-len with "unrecognized arguments" (exit 2)',
            "Write --max-model-len instead of -max-model-len at "
            "gaie2487_single_dash_max_model_len.yaml:31:14.",
        ),
    ]


# was c: an Eagle3 draft under EAGLE (sglang PR#21272, closed unmerged: SGLang still says nothing). RS033
# (layers/start_values.py) reads the draft's name; its config.json would say it for certain
EAGLE3_DRAFT = (
    "RS033",
    "warning",
    "--speculative-algorithm EAGLE with the draft 'lightseekorg/kimi-k2.5-eagle3', whose name says it is an "
    "EAGLE-3 draft: sglang 0.5.23 captures the three target hidden states an EAGLE-3 draft reads only under "
    "EAGLE3 (spec_aux_hidden_state.py), so the draft gets one, predicts garbage and every draft token is "
    "rejected: the server runs, slower than without speculation, with no error (sglang PR#21272; assumed "
    "from the draft's name, its config.json's architecture decides)",
    "--speculative-algorithm EAGLE3",
)


def test_sglang21272_names_the_eagle3_draft_under_eagle() -> None:
    report = check(LAUNCHES["sglang21272"])
    assert found(report) == [EAGLE3_DRAFT]
    assert [f["basis"] for f in alarms(report)] == ["assumed"]


@pytest.mark.parametrize(
    ("algorithm", "draft", "codes"),
    [
        ("EAGLE", "jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B", ["RS033"]),
        ("EAGLE", "/models/Eagle3-Qwen3-8B/", ["RS033"]),
        ("EAGLE3", "/models/Eagle3-Qwen3-8B/", []),
        # an EAGLE-2 draft whose name holds "llama3", not "eagle3"
        ("EAGLE", "lmsys/sglang-EAGLE-LLaMA3-Instruct-8B", []),
        # a directory named eagle3 above a draft of another name: only the draft's own name is read
        ("EAGLE", "/eagle3/drafts/EAGLE-LLaMA3-Instruct-8B", []),
    ],
)
def test_rs033_reads_the_draft_s_own_name(
    algorithm: str, draft: str, codes: list[str], tmp_path: Path
) -> None:
    command = (
        f"python -m sglang.launch_server --model-path /m --speculative-algorithm {algorithm} "
        f"--speculative-draft-model-path {draft}"
    )
    result = run_cli(["check", "--format", "json", "--no-resolve", *v("0.5.23"), "-c", command], cwd=tmp_path)
    assert [f["code"] for f in result.json["findings"] if f["code"] == "RS033"] == codes


def test_castai737_sh_c_runs_vllm_alone() -> None:
    """`command: ["/bin/sh", "-c", "vllm", "serve"]`: sh runs `vllm` with no words ("serve" is its $0)."""
    assert found(check(LAUNCHES["castai737"])) == [
        (
            "TP004",
            "error",
            "`sh -c vllm` runs only vllm: the following 9 word(s) (serve Qwen/Qwen2.5-7B-Instruct "
            "--trust-remote-code --gpu-memory-utilization=1 ...) become $0, $1, ... of that command string "
            "and are never used",
            "Quote the whole command as one word: `bash -c 'python3 -m sglang.launch_server --port 30000'`; "
            "over ssh quote twice: `ssh gpu1 \"bash -c 'python3 ...'\"`.",
        )
    ]


# was c: nothing compared a pod's probes with the server's port. TP070 (layers/container_ports.py) reads the
# probes' ports (transport/k8s_pod.py, a named containerPort resolved) against the parser's --port
def test_castai739_the_probes_ask_another_port() -> None:
    assert found(check(LAUNCHES["castai739"])) == [
        (
            "TP070",
            "warning",
            "the container's readinessProbe and livenessProbe ask port http (containerPort 8080), but vllm "
            "0.7.3 listens on 8000 (--port's default): the probes never succeed, so the pod never becomes "
            "Ready and its Service sends it no requests; the kubelet restarts the container again and again",
            "give the server --port 8080 (or point the probes at port 8000)",
        )
    ]


POD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
spec:
  template:
    spec:
      containers:
        - name: server
          image: IMAGE
          command: COMMAND
          ports: [{name: http, containerPort: 8080}, {name: metrics, containerPort: 9090}]
          PROBE
"""


@pytest.mark.parametrize(
    ("image", "command", "probe", "messages"),
    [
        # the named port and --port agree; a numeric probe on vLLM's default
        (
            "vllm/vllm-openai:v0.12.0",
            '["vllm", "serve", "m", "--port", "8080"]',
            "livenessProbe: {httpGet: {path: /health, port: http}}",
            [],
        ),
        (
            "vllm/vllm-openai:v0.12.0",
            '["vllm", "serve", "m"]',
            "readinessProbe: {tcpSocket: {port: 8000}}",
            [],
        ),
        # SGLang's default 30000 against a numeric startup probe
        (
            "lmsysorg/sglang:v0.5.5",
            '["python3", "-m", "sglang.launch_server", "--model-path", "m"]',
            "startupProbe: {httpGet: {path: /health, port: 8000}}",
            [
                "the container's startupProbe asks port 8000, but sglang 0.5.5.post3 listens on 30000 "
                "(--port's default): the probe never succeeds, so the kubelet restarts the container again "
                "and again, and the pod never becomes Ready"
            ],
        ),
        # a port the parser cannot read is not compared (an unset $PORT: argparse refuses the launch; a
        # variable from a ConfigMap), nor a probe on a name the container lacks
        (
            "vllm/vllm-openai:v0.12.0",
            '["sh", "-c", "vllm serve m --port $PORT"]',
            "livenessProbe: {httpGet: {path: /health, port: http}}",
            [],
        ),
        (
            "vllm/vllm-openai:v0.12.0",
            '["sh", "-c", "vllm serve m --port $PORT"]',
            "livenessProbe: {httpGet: {path: /health, port: http}}\n"
            "          env: [{name: PORT, valueFrom: {configMapKeyRef: {name: ports, key: api}}}]",
            [],
        ),
        ("vllm/vllm-openai:v0.12.0", '["vllm", "serve", "m"]', "livenessProbe: {httpGet: {port: api}}", []),
    ],
)
def test_tp070_compares_the_probed_port_with_the_server_s(
    image: str, command: str, probe: str, messages: list[str], tmp_path: Path
) -> None:
    (tmp_path / "pod.yaml").write_text(
        POD.replace("IMAGE", image).replace("COMMAND", command).replace("PROBE", probe)
    )
    result = run_cli(["check", "--format", "json", "--no-resolve", "pod.yaml"], cwd=tmp_path)
    assert [f["message"] for f in result.json["findings"] if f["code"] == "TP070"] == messages


# --- class b by `check`: the flag or the mechanism is named in an info, the cause is not asserted ----------

NAMED_IN_INFO = {
    # the README's release is not named: 0.17.1-0.32.0 removed the flag (0.33.0 has it again)
    "kvcached270": ("PR011", "vllm 0.17.1-0.32.0 do not know --disable-log-requests"),
    # vllm PR#29326 removed it in 0.12.0
    "tpuinference1230": ("PR011", "vllm 0.12.0-0.33.0 do not know --guided-decoding-backend"),
    # the image's ENTRYPOINT is `vllm serve`: `tail -f /dev/null` become its arguments
    "hyperloom837": ("TP040", "an ENTRYPOINT in the image would run before them"),
}


@pytest.mark.parametrize("name", sorted(NAMED_IN_INFO))
def test_batch_11_the_flag_is_named_in_an_info(name: str) -> None:
    report = check(LAUNCHES[name])
    code, words = NAMED_IN_INFO[name]
    assert any(f["code"] == code and words in f["message"] for f in report["findings"])
    assert alarms(report) == []


def test_tpuinference1230_says_the_flag_is_deprecated_where_it_was_last_taken() -> None:
    report = check(LAUNCHES["tpuinference1230"])
    assert [f["message"] for f in report["findings"] if f["code"] == "PA005"] == [
        "--guided-decoding-backend is deprecated in vllm 0.11.2: [DEPRECATED] --guided-decoding-backend "
        "will be "
        "removed in v0.12.0."
    ]


# --- misses: no error or warning names the root cause -------------------------------------------------------

STAND_IN = "PR008: the named release is read from a bundled release (true of argtrace's reach)"

MISSED_11 = [
    Missed(
        "recipes441",
        "Gemma 4's largest multimodal item (2496 tokens) above the default --max-num-batched-tokens "
        "2048: the "
        "model's processor config, not on a new user's machine; `why` names compute_mm_encoder_budget and "
        "--max-num-batched-tokens (class a by why)",
    ),
    Missed(
        "recipes551",
        "the default max_num_seqs 1024 above the Mamba cache blocks that fit on one H100: the KV cache's "
        "size "
        "(the model's config.json and the memory after loading); `why` names "
        "CompilationConfig.resolve_cudagraph_mode_and_sizes and --max-num-seqs (class a by why)",
    ),
    Missed(
        "vllm32599",
        "the adapter's own lm_head weights (its safetensors, not the launch); `why` names "
        "parse_fine_tuned_lora_name with no setting (class b by why)",
    ),
    Missed(
        "llmscaler270",
        "Gemma 3 refuses float16 (its config.json's architecture; the release not bundled besides its "
        "family) "
        "(PA007 info: --gpu-memory-util is an abbreviation)",
    ),
    Missed(
        "opea1808",
        "the chat template path is relative to a directory the image no longer holds: the image's files are "
        "not known here (TP040 info); the TP012 warnings are true of the compose file (unset variables)",
        besides=("TP012",),
    ),
    Missed(
        "sgldiffrouting16",
        "the second diffusion worker's --port is the first one's ZMQ broker port (port + 1): the diffusion "
        "server's derived ports are not modelled (PA028 infos)",
    ),
    Missed(
        "vllm18986",
        f"an IPv6 address in vLLM's data-parallel handshake URL without brackets: {FRAMEWORK_BUG} (vllm "
        "PR#18991); the script stops where the platform's variables are unset and is read past that guard as "
        "if they were set (SH046 info, 2026-12-03)",
    ),
    Missed(
        "vllm7196",
        f"0.5.4's api_server bound the fixed RPC port 5570 for every server: {FRAMEWORK_BUG}; `why` names "
        f"a site of 2026 (weak). {STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllmascend8511",
        f"GLM-4.6V's multimodal tensors with a batch above 2048 tokens on Ascend: {FRAMEWORK_BUG}; the "
        "posted command's glued values ('50--seed', '4-96') are refused as written (PA010, PA001: true of "
        f"the text). {STAND_IN}",
        besides=("PR008", "PA010", "PA001"),
    ),
]


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_11],
)
def test_batch_11_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case
    got = alarms(check(LAUNCHES[case.name]))
    assert [f for f in got if f["code"] not in case.besides] != []


def test_batch_11_the_misses_raise_no_other_alarm() -> None:
    """Class d is a wrong error or warning: vllm-ascend#8511 had one on first sight (RS032 compared the
    refused '4-96' with --max-model-len), fixed (layers/start_raises.py); the rest are true of the text."""
    got = {}
    for case in MISSED_11:
        codes = sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))})
        if codes:
            got[case.name] = codes
    assert got == {
        "opea1808": ["TP012"],
        "vllmascend8511": ["PA001", "PA010"],
    }


def test_vllmascend8511_the_glued_values_are_refused_as_written() -> None:
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(check(LAUNCHES["vllmascend8511"]))] == [
        ("PA010", "error", "argument --max-num-seqs: invalid int value: '50--seed' (argparse exit 2)"),
        (
            "PA010",
            "error",
            "argument --max-num-batched-tokens: invalid human_readable_int value: '4-96' (argparse exit 2)",
        ),
        (
            "PA001",
            "error",
            "'1024' (after 50--seed) is not a value of any flag: vllm 0.18.1 rejects it with \"unrecognized "
            'arguments" (exit 2)',
        ),
    ]


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_11_correct_launches_raise_no_alarm(name: str) -> None:
    assert alarms(check(CORRECT[name])) == []


def test_gaie2487_the_fixed_manifest_only_notes_the_leftover_variable() -> None:
    report = check(Launch("ok_gaie2487_fixed_gpu_deployment.yaml"))
    assert found(report) == []
    assert use_v1(report) == USE_V1


# --- RS032 is not evaluated on a launch argparse refuses (vllm-ascend#8511, was d) ------------------------


def test_vllmascend8511_without_its_release_raises_no_rs032() -> None:
    """Measured first without --framework-version (analysed as 0.33.0), the posted command drew an RS032
    warning: SchedulerConfig's "max_num_batched_tokens must be greater than or equal to max_num_seqs",
    comparing the refused words '4-96' and '50--seed' (class d); argparse exits first (PA010). With the
    report's release (0.18.0, whose checks are not indexed here) it was not evaluated."""
    report = check(Launch("vllmascend8511_glm46v_glued_values.cmd"))
    assert sorted({f["code"] for f in alarms(report)}) == ["PA001", "PA010"]


def rs032(command: str, tmp_path: Path, *options: str) -> list[str]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command], cwd=tmp_path)
    return [f["severity"] for f in result.json["findings"] if f["code"] == "RS032"]


def test_rs032_is_not_evaluated_when_argparse_exits_first(tmp_path: Path) -> None:
    refused = "vllm serve /m --enable-lora --max-loras 4 --max-cpu-loras 2"
    assert rs032(refused, tmp_path, *v("0.33.0")) == ["error"]
    # argparse stops at the unknown flag, or at a value its type refuses, before LoRAConfig is built
    assert rs032(refused + " --no-such-flag", tmp_path, *v("0.33.0")) == []
    assert rs032("vllm serve /m --enable-lora --max-loras 4 --max-cpu-loras 2x", tmp_path, *v("0.33.0")) == []


# --- `argtrace why` on the error text a report quotes -----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str | None
    settings: tuple[str, ...]
    confidence: str
    klass: str  # a / b / c / d, by why alone, after this batch


WHY_11 = [
    # was d: SGLang's ServerArgs.from_cli_args as a strong match for vLLM's message with a blank word
    Why(
        "https://github.com/vllm-project/recipes/pull/167",
        "vllm: error: unrecognized arguments:  \n--mm_processor_cache_type: not found",
        "FlexibleArgumentParser.parse_args",
        (),
        "strong",
        "a",
    ),
    Why(
        "https://github.com/vllm-project/recipes/issues/441",
        "ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than "
        "max_num_batched_tokens (2048). Please increase max_num_batched_tokens.",
        "compute_mm_encoder_budget",
        ("max_num_batched_tokens", "disable_chunked_mm_input"),
        "strong",
        "a",
    ),
    Why(
        "https://github.com/vllm-project/recipes/pull/551",
        "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (856). Each decode sequence "
        "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs "
        "to at "
        "most 856 or increase gpu_memory_utilization.",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        ("max_num_seqs", "gpu_memory_utilization"),
        "strong",
        "a",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/32599",
        "ValueError: base_model.model.lm_head.base_layer.weight is unsupported LoRA weight",
        "parse_fine_tuned_lora_name",
        (),
        "strong",
        "b",
    ),
    # a bug of 0.5.4 (the fixed RPC port); the best site is another bind's, graded weak
    Why(
        "https://github.com/vllm-project/vllm/issues/7196",
        "zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')",
        "ParallelConfig.stateless_init_dp_group",
        (),
        "weak",
        "c",
    ),
    # was d: an SGLang logit-processor site as a strong match; PyTorch's broadcast wording now says whose
    # text it is (the reporter's spelling kept)
    Why(
        "https://github.com/vllm-project/vllm-ascend/issues/8511",
        "runtimeerror the size of tensor a (24336) must match the size of tensor b (24335) at non-sinhleton "
        "dimsion",
        "apply_custom_logit_processor",
        (),
        "weak",
        "c",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_11, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_11_why_first_site(case: Why) -> None:
    section = explain(case.text)
    matches = section["matches"]
    first = matches[0] if matches else None
    got = (first["function"], tuple(s["name"] for s in first["settings"])) if first else (None, ())
    assert (*got, section["confidence"]) == (case.function, case.settings, case.confidence)


def test_recipes167_why_says_the_blank_word_is_a_backslash_space_and_reads_dash() -> None:
    section = explain(WHY_11[0].text)
    assert section["matches"][0]["framework"] == "vllm"
    assert section["matches"][0]["fix"] == BLANK_WORD
    shell = section["shell"]
    assert (shell["shell"], shell["kind"], shell["flag"]) == (
        "dash (sh)",
        "not found",
        "--mm_processor_cache_type",
    )


def test_vllmascend8511_why_says_pytorch_printed_it() -> None:
    section = explain(WHY_11[5].text)
    assert section["origin"]["basis"] == "wording"
    assert section["origin"]["source"] == "https://github.com/vllm-project/vllm-ascend/issues/8511"


# variants not from the reports: another program's blank word, dash's words for another flag, another size


def test_a_blank_word_sglang_refused_is_a_backslash_space_too() -> None:
    section = explain("launch_server.py: error: unrecognized arguments: \t")
    assert (section["matches"][0]["framework"], section["matches"][0]["fix"]) == ("sglang", BLANK_WORD)


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("--tensor-parallel-size: not found", "--tensor-parallel-size"),
        ("run.sh: 12: --tensor-parallel-size: not found", "--tensor-parallel-size"),
        ("model: not found", None),  # not a flag: common wording, not read as dash's
    ],
)
def test_dash_s_not_found_without_its_prefix_is_read_for_a_flag_only(text: str, flag: str | None) -> None:
    shell = explain(text).get("shell")
    assert (shell["flag"] if shell else None) == flag


def test_pytorch_s_broadcast_mismatch_is_its_wording_at_any_size() -> None:
    section = explain(
        "RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048) at non-singleton "
        "dimension 1"
    )
    # mixed35: the weak partial match of SGLang's custom-logit-processor assertion (an AssertionError, the
    # text a RuntimeError) is no longer offered, so no site is left to call weak: the origin alone answers
    assert (section["origin"]["basis"], section["confidence"], section["matches"]) == ("wording", "none", [])


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_11_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name
