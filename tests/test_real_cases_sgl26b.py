"""SGLang batch of the 26th session (docs/real_cases.md, "SGLang sgl26b: Docker's /dev/shm, pipeline
parallelism per model class, adaptive speculative decoding, variables a later release dropped, torch
compile"), measured before any fix.

Thirteen failure reports of 2025-2026 whose cause lies in the launch (a ``docker run`` of a multi-GPU
server that leaves /dev/shm at 64 MiB, ``--speculative-adaptive`` beside DP attention or two-batch
overlap, variables later releases no longer read, a model shipping remote code without
``--trust-remote-code``, ``--pp-size`` on a model class without pipeline parallelism,
``--enable-torch-compile`` and the diffusion server's speed mode, PD with different TP sizes, a reranker
without its template, flashinfer for a hybrid GDN model on SM12x) and six correct launches (``ok_*``). The
module is ``sgl26b`` because ``test_real_cases_sgl26.py`` holds the earlier "SGLang, 2025-2026" batch.
Each case under ``tests/data/real_cases_sgl26b/`` names its URL in its header: ``.cmd`` launches
(``argtrace check -c``) and scripts. A new user's machine (no resolver environment, no Hugging Face
cache); no report names its release; ``--gpu`` only where the report names a GPU argtrace has a profile of
(sglang PR#18758: RTX 5090). Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    RECONSTRUCTED,
    WhyCase,
    assert_why_gives,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl26b"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (b7391bf2) and now.
CLASSES = {
    "milesdiffusionpr13_cu130_shm_size.sh": ("c", "a"),
    "sglangpr35060_cutlass_moe_variable_removed.cmd": ("b", "b"),
    "sglangpr24297_jit_all_reduce_renamed.cmd": ("b", "b"),
    "sglangpr35898_adaptive_spec_dp_attention.cmd": ("c", "c"),
    "sglangpr23289_adaptive_spec_tbo.cmd": ("c", "c"),
    "sglangpr28693_laguna_trust_remote_code.cmd": ("c", "c"),
    "sglangpr25284_gemma4_pipeline_parallel.cmd": ("b", "a"),  # why: the model class's forward (mixed39)
    "sglangpr18925_kimi_k25_pipeline_parallel.sh": ("b", "a"),
    "sglang17830_kimi_linear_torch_compile.cmd": ("c", "c"),
    "sglangpr34173_diffusion_speed_mode_compile.cmd": ("c", "c"),
    "sglang15674_pd_tp_sizes_non_mla.sh": ("b", "b"),
    "sglang20456_qwen3_reranker_no_chat_template.cmd": ("d", "d"),
    "sglangpr18758_gdn_flashinfer_sm120.cmd": ("c", "c"),
}
# the GPU a report names, where argtrace has its profile (the PR names the RTX 5090)
OPTIONS = {"sglangpr18758_gdn_flashinfer_sm120.cmd": ("--gpu", "rtx-5090x4")}
CORRECT = [
    "ok_sglangpr9573_eagle3_hybrid_attention.cmd",
    "ok_sglangpr28693_laguna_with_trust_remote_code.cmd",
    "ok_atompr1046_mtp_dp_attention.sh",
    "ok_srtslurmpr141_llama33_metrics.cmd",
    "ok_milesdiffusionpr13_cu130_with_shm_size.sh",
    "ok_sglangpr36342_granite_auto_parsers.cmd",
]


# the error each report quotes (the others quote none)
PP_ASSERT = "AssertionError: Pipeline Parallel is not compatible with this model."
WHY_TEXTS = {
    "sglangpr25284_gemma4_pipeline_parallel.cmd": PP_ASSERT,
    "sglangpr18925_kimi_k25_pipeline_parallel.sh": PP_ASSERT,
    "sglang20456_qwen3_reranker_no_chat_template.cmd": (
        "This model does not appear to be an embedding model by default. Please add `--is-embedding` when "
        "launching the server or try another model."
    ),
}
# the raise site is right; the gate's get_parallel().pp_size is read as --pp-size (a runtime context's
# config bag returns the ServerArgs field); the fix led with a draft worker's variable (b) until mixed39 (the
# model table's pp flag: the class's forward decides it; --pp-size 1 or a release whose class takes it)
_PP_WHY = {
    "function": "ModelRunner.__init__",
    "confidence": "strong",
    "at": "sglang/srt/model_executor/model_runner.py:514",
    "settings": ("SGLANG_ENABLE_PP_SPEC", "pp_size"),
    "fix": "support_pp is whether the model class's forward takes pp_proxy_tensors "
    "(sglang/srt/model_executor/model_runner.py:514 of SGLang 0.5.23): the model decides it, no flag does",
}
WHY = [
    WhyCase("sglangpr25284_gemma4_pipeline_parallel.cmd", "b", "a", **_PP_WHY),  # type: ignore[arg-type]
    WhyCase("sglangpr18925_kimi_k25_pipeline_parallel.sh", "b", "a", **_PP_WHY),  # type: ignore[arg-type]
    # a wrong first answer (d): the error's own advice, --is-embedding, is what breaks a decoder-only
    # reranker; the report's fix is --chat-template examples/chat_template/qwen3_reranker.jinja
    WhyCase(
        "sglang20456_qwen3_reranker_no_chat_template.cmd",
        "d",
        "d",
        "TokenizerManager._validate_one_request",
        "strong",
        at="sglang/srt/managers/tokenizer_manager.py:1382",
        settings=("is_embedding",),
        fix="make the condition false (isinstance(obj, EmbeddingReqInput) and self.is_generation): change "
        "--is-embedding",
    ),
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 5, 7, 1], [3, 3, 6, 1])
    for case in WHY:
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {"milesdiffusionpr13_cu130_shm_size.sh": [("MM015", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check`, before or after (sglang#20456's d is `why`'s): the one warning is
    MM015's on the cu130 image run without --shm-size; the others get notes only (the release assumed,
    --tp read as --tp-size, PA041's different TP sizes)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_the_shm_finding_names_the_image_the_ranks_and_the_fix() -> None:
    mm015 = finding(check("milesdiffusionpr13_cu130_shm_size.sh"), "MM015")
    assert mm015["message"] == (
        "the `docker run` of lmsysorg/sglang:v0.5.14-cu130 sets no /dev/shm (no --shm-size, --ipc host or "
        "mount there), so the container keeps Docker's 64 MiB: the 2 ranks of this start on the node "
        "(tp_size 2 x pp_size 1) talk through NCCL, whose shared-memory segments live in /dev/shm and fail "
        "to be created once they outgrow it"
    )
    assert (
        mm015["fix"]
        == "Add `--shm-size 32g` (SGLang's Docker instructions) or `--ipc host` to the `docker run`."
    )
    assert (mm015["at"], mm015["layer"]) == ("milesdiffusionpr13_cu130_shm_size.sh:2:1", "memory")


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def test_a_config_bag_read_is_the_setting_of_that_name() -> None:
    """Variants of the PP assert's condition: SGLang 0.5.23's get_parallel()/get_schedule() bags return the
    ServerArgs field of the name read; a release the helper table does not hold reads none through them."""
    from argtrace.frameworks.sglang_helpers import helper_reads

    assert helper_reads(
        "0.5.23", ["get_parallel().pp_size > 1", "get_schedule().chunked_prefill_size"], []
    ) == [
        "server_args.pp_size",
        "server_args.chunked_prefill_size",
    ]
    assert helper_reads("0.5.23", ["get_parallel().pp_size > 1"], ["server_args.pp_size"]) == []
    assert helper_reads("0.5.10.post1", ["get_parallel().pp_size > 1"], []) == []


def _mm015(command: str) -> list[str]:
    report = run_cli(["check", "--format", "json", "--no-resolve", "-c", command]).json
    return [f["message"].split(": the ", 1)[-1] for f in report["findings"] if f["code"] == "MM015"]


def test_how_a_docker_run_sets_its_shm_and_which_starts_need_it() -> None:
    """Variants (not reports) of miles_diffusion PR#13: vLLM's TP, PP, SGLang's TP over two nodes; --ipc
    host, a mount or a tmpfs at /dev/shm set it; one GPU, DP replicas of one GPU each (no NCCL group) and
    Ascend's devices say nothing."""
    sg = "docker run --gpus all {opts} lmsysorg/sglang:v0.5.14 python3 -m sglang.launch_server --model-path m"
    assert _mm015(sg.format(opts="") + " --tp-size 2 --pp-size 2") == [
        "4 ranks of this start on the node (tp_size 2 x pp_size 2) talk through NCCL, whose shared-memory "
        "segments live in /dev/shm and fail to be created once they outgrow it"
    ]
    two_nodes = " --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000"
    assert [m.split(" talk", 1)[0] for m in _mm015(sg.format(opts="") + two_nodes)] == [
        "8 ranks of this start on the node (tp_size 16 x pp_size 1 over nnodes 2)"
    ]
    vllm = "docker run --gpus all vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B --tensor-parallel-size 4"
    assert [m.split(" (", 1)[0] for m in _mm015(vllm)] == ["4 ranks of this start on the node"]
    for opts in ("--ipc=host", "--ipc host", "-v /dev/shm:/dev/shm", "--mount type=tmpfs,target=/dev/shm",
                 "--tmpfs /dev/shm:rw,size=8g", "--shm-size=16g"):  # fmt: skip
        assert _mm015(sg.format(opts=opts) + " --tp-size 2") == [], opts
    assert _mm015(sg.format(opts="") + " --tp-size 1") == []
    assert _mm015(sg.format(opts="") + " --dp-size 2") == []
    assert _mm015(sg.format(opts="--device /dev/davinci0 --device /dev/davinci1") + " --tp-size 2") == []
    assert _mm015(sg.format(opts="-v /data:/data") + " --tp-size 2")[0].startswith("2 ranks")


_CONFIG = (
    '{{"architectures": ["{arch}"], "model_type": "{mtype}", "hidden_size": 2048, "num_hidden_layers": 24, '
    '"num_attention_heads": 16, "num_key_value_heads": 16, "max_position_embeddings": 4096, '
    '"vocab_size": 32000, "head_dim": 128}}'
)


def _rs049(tmp_path: Path, arch: str, *options: str, pp: int = 2) -> list[tuple[str, str, str]]:
    (tmp_path / "config.json").write_text(_CONFIG.format(arch=arch, mtype=arch.lower()), encoding="utf-8")
    argv = ["check", "--format", "json", "--no-resolve", "--model-config", "config.json", *options, "-c"]
    command = f"python3 -m sglang.launch_server --model-path m --pp-size {pp}"
    report = run_cli([*argv, command], cwd=tmp_path).json
    return [(f["severity"], f["message"], f["fix"]) for f in report["findings"] if f["code"] == "RS049"]


def test_pipeline_parallel_on_a_class_whose_forward_takes_no_proxy_tensors(tmp_path: Path) -> None:
    """The mechanism of sglang PR#25284 (Gemma4 before its PP support), with config.json at hand: SGLang's
    ModelRunner asserts that forward() takes pp_proxy_tensors, read from the wheels into the model table.
    Gemma3ForCausalLM's does not in 0.5.23 (an error there, a warning on an assumed release); Gemma4's does;
    --pp-size 1 and a release whose table has no flag (0.5.19) say nothing."""
    (severity, message, fix) = _rs049(tmp_path, "Gemma3ForCausalLM", "--framework-version", "0.5.23")[0]
    assert (severity, message, fix) == (
        "error",
        "--pp-size 2, but the forward() of Gemma3ForCausalLM (sglang/srt/models/gemma3_causal.py) takes no "
        "pp_proxy_tensors in sglang 0.5.23, so the model has no pipeline-parallel support: "
        "ModelRunner.__init__ (sglang/srt/model_executor/model_runner.py:514) raises AssertionError: "
        '"Pipeline Parallel is not compatible with this model." when the model is loaded, after the weights',
        "--pp-size 1, and --tp-size for the GPUs (2 x the TP size)",
    )
    assert [f[0] for f in _rs049(tmp_path, "Gemma3ForCausalLM")] == ["warning"]
    assert _rs049(tmp_path, "Gemma4ForCausalLM", "--framework-version", "0.5.23") == []
    assert _rs049(tmp_path, "Gemma3ForCausalLM", "--framework-version", "0.5.23", pp=1) == []
    assert _rs049(tmp_path, "Gemma3ForCausalLM", "--framework-version", "0.5.19") == []


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr35060_cutlass_moe_variable_removed.cmd": (
        "SGLANG_CUTLASS_MOE",
        "the variable narrows the assumed release to 0.5.17, the newest that reads it; only PR011's note "
        "says 0.5.18-0.5.23 do not know it, without --moe-runner-backend cutlass as the fix",
    ),
    "sglangpr24297_jit_all_reduce_renamed.cmd": (
        "SGLANG_USE_JIT_ALL_REDUCE",
        "as SGLANG_CUTLASS_MOE: the assumed release is the newest reading the old name (0.5.11), and the "
        "rename to SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2 shows only in PR011's note",
    ),
    "sglangpr35898_adaptive_spec_dp_attention.cmd": (
        "speculative-adaptive",
        "the release's _maybe_disable_adaptive (0.5.23 speculative_hook.py) turns the switch off under DP "
        "attention: only running the release's resolution shows it, and a new user has no resolver "
        "environment",
    ),
    "sglangpr23289_adaptive_spec_tbo.cmd": (
        "speculative-adaptive",
        "as sglang PR#35898, for two-batch overlap: the release's own code, not run without its environment",
    ),
    "sglangpr28693_laguna_trust_remote_code.cmd": (
        "trust-remote-code",
        "whether the checkpoint ships remote code is in its config.json (auto_map), not in a new user's "
        "cache",
    ),
    "sglang17830_kimi_linear_torch_compile.cmd": (
        "torch-compile",
        "a failure of torch.compile on the model's code at run time: no start-up check reads it",
    ),
    "sglangpr34173_diffusion_speed_mode_compile.cmd": (
        "performance-mode",
        "the diffusion server's speed mode turned torch.compile on before the PR: its defaults are not "
        "resolved, and the regression is a measured slowdown, not a refusal",
    ),
    "sglang15674_pd_tp_sizes_non_mla.sh": (
        "TP sizes",
        "PA041 names the different TP sizes as a note and says plain attention models transfer fine: the "
        "crash under load is a bug of the transfer path for non-MLA models, not a refusal in the code",
    ),
    "sglang20456_qwen3_reranker_no_chat_template.cmd": (
        "chat-template",
        "that Qwen3-Reranker is a decoder-only reranker needing the qwen3_reranker template is the model's "
        "(config.json and the docs), not a start-up check; `why` repeats the error's --is-embedding (d)",
    ),
    "sglangpr18758_gdn_flashinfer_sm120.cmd": (
        "flashinfer",
        "the attention registry's Blackwell assertion tests the model's hybrid GDN layers (config.json) "
        "and the release; with neither known nothing evaluates it",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
