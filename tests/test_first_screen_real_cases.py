"""The first screen of real cases, exactly: ``argtrace check``/``log`` at 80 columns, from the case's
directory as a new user runs it (bench/first_screen_audit.py measured every class-a case; docs/status.md,
"First screen"). Each screen pins one mechanism of render/screen.py, render/text.py or causes.py:

* the header is one line (``header_line``): 93 of 142 headers wrapped over two or three lines;
* beside an alarm, the info findings about argtrace's reach (PR007, PR008, PR011, RS004) are one line
  (``reach_line``) after the launch's own findings;
* a cause with consequences keeps the rest of its message above its "explains" line (brace expansion, SH022,
  explains the parser's PA001 at the word it split: causes.py ``brace-expansion``);
* an alarm read with an assumption says so, and what was assumed (``assumption_line``);
* ``log`` folds its causes (LG001 quotes LG011's exception: same-raise), its "explains" after the fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")
DATA = Path(__file__).resolve().parent / "data"


def command_of(path: Path) -> list[str]:
    """A ``.cmd`` case as ``-c`` (its header comment lines dropped, as tests/conftest.py check_launch)."""
    lines = path.read_text().splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return ["-c", "\n".join(lines).strip("\n")]


def screen(monkeypatch: pytest.MonkeyPatch, argv: list[str], cwd: Path | None, lines: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    return run_cli(argv, cwd=cwd).stdout.splitlines()[:lines]


def test_gongjiyun_brace_expansion_and_what_it_explains(monkeypatch: pytest.MonkeyPatch) -> None:
    # gongjiyun.com docs (batch cases12, its URL in the case file): the unquoted JSON, split by braces
    cases = DATA / "real_cases_cases12"
    argv = ["check", *command_of(cases / "gongjiyun_limit_mm_unquoted_json.cmd")]
    assert screen(monkeypatch, argv, cases, 8) == [
        "argtrace check — vllm release unknown, analysed as 0.33.0 (--framework-version)",
        "Diagnosis: 1 error, 3 info; 2 more findings follow from them",
        "ERROR SH022 <-c>:1:101 brace expansion turns the unquoted…",
        '  `{"image":4,"video":0}` into 2 words: `"image":4`, `"video":0`',
        "  explains 2 findings: PA011, PA001",
        '  fix: Quote {"image":4,"video":0} at <-c>:1:101: write \'{"image":4,"video":0}\'.',
        "INFO on what argtrace could read: PR011, PR007, RS004 (Details)",
        "Server 1 of 1 at <-c>:1:1: vllm vllm serve",
    ]
    # before: a header over two lines, PA001 as a second error for the same word, the message cut to
    # its headline by "explains", and three more INFO headlines (PR011, PR007, RS004); until batch sgl18
    # PA011 (the first word the expansion made, refused as the flag's value) was a note of its own


def test_vllm12378_an_assumed_gpu_is_said_and_the_stand_in_release_is_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # vllm-project/vllm#12378 (models batch): a Hugging Face cache's repo folder given as the model
    cases = DATA / "real_cases_models"
    argv = [
        "check",
        "--framework-version",
        "0.6.6",
        *command_of(cases / "vllm12378_hf_cache_repo_folder.cmd"),
    ]
    assert screen(monkeypatch, argv, cases, 7) == [
        "argtrace check — vllm 0.6.6 (named with --framework-version)",
        "Diagnosis: 1 warning, 2 info",
        "WARNING RS034 --model '/myhome/huggingface/hub/models--deepseek-ai--DeepSeek-R1…",
        "  -Distill-Qwen-1.5B' is a Hugging Face cache's folder of the repo…",
        "  fix: give the snapshot folder /myhome/huggingface/hub/models--deepseek-ai--De…",
        "  rests on an assumption: GPU h100 (pass --gpu NAME[xCOUNT])",
        "INFO on what argtrace could read: PR008, RS004 (Details)",
    ]


def test_pd8_vllm14952_evidence_first_and_the_assumption_said(monkeypatch: pytest.MonkeyPatch) -> None:
    # vllm-project/vllm#14952 (PD batch): prefill and decode with different tensor parallel sizes
    cases = DATA / "real_cases_pd8"
    argv = ["check", "pd8_vllm14952_pynccl_tp_mismatch.sh"]
    # `$model` is copied from the caller's MODEL_PATH, not set here: both SH026 rest on that assumption
    assert screen(monkeypatch, argv, cases, 15) == [
        "argtrace check — vllm release unknown, analysed as 0.33.0 (--framework-version)",
        "Diagnosis: 3 warnings, 6 info; 2 more findings follow from them",
        "WARNING SH026 pd8_vllm14952_pynccl_tp_mismatch.sh:6:13 `$model` is empty here:…",
        "  the script sets it from `$MODEL_PATH`, which is not set (in the environment…",
        "  explains 2 findings: PA012 x2",
        "  fix: Set MODEL_PATH where the server runs (check with `--env…",
        "  rests on an assumption (its message says which)",
        "WARNING SH026 pd8_vllm14952_pynccl_tp_mismatch.sh:17:13 `$model` is empty here:…",
        "  the script sets it from `$MODEL_PATH`, which is not set (in the environment…",
        "  fix: Set MODEL_PATH where the server runs (check with `--env…",
        "  rests on an assumption (its message says which)",
        "WARNING PA041 pd8_vllm14952_pynccl_tp_mismatch.sh:15:1 the PyNcclConnector…",
        "  instances run different tensor parallel sizes (server 1: 1, server 2: 2): its…",
        "  fix: give the prefill and decode instances the same --tensor-parallel-size",
        "  rests on an assumption (its message says which)",
    ]


def test_vllm3416_compose_header_and_reach_in_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    # vllm-project/vllm#3416: --tensor-parallel-size 4 in a compose service given one GPU
    cases = DATA / "real_cases"
    argv = ["check", "vllm3416_compose_tp4_one_gpu.yaml"]
    assert screen(monkeypatch, argv, cases, 12) == [
        "argtrace check — vllm release unknown, analysed as 0.33.0 (--framework-version)",
        "Diagnosis: 2 errors, 5 info",
        "ERROR TP042 vllm3416_compose_tp4_one_gpu.yaml:13 the server needs 4 GPU(s)…",
        "  (tensor_parallel_size 4 x pipeline_parallel_size 1 x data_parallel_size 1)…",
        "  fix: Give the container as many GPUs as the parallel sizes multiply to, or…",
        "ERROR PR004 vllm3416_compose_tp4_one_gpu.yaml:13 the server needs 4 GPU(s)…",
        "  (tensor_parallel_size 4 x pipeline_parallel_size 1 x data_parallel_size 1)…",
        "  fix: make CUDA_VISIBLE_DEVICES list as many GPUs as tp x dp x pp, or lower…",
        "INFO TP044 vllm3416_compose_tp4_one_gpu.yaml:13 `vllm/vllm-openai:latest`:…",
        # vLLM's own warning: --model moves to the positional and "will be removed in a future version"
        "INFO PA056 vllm3416_compose_tp4_one_gpu.yaml:13 `vllm serve --model…",
        "INFO on what argtrace could read: PR011, PR007, RS004 (Details)",
        "Server 1 of 1 at vllm3416_compose_tp4_one_gpu.yaml:13: vllm vllm serve",
    ]


def test_sglang_pr34684_log_one_cause_and_its_file_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # sgl-project/sglang pull 34684 (logs batch 2): deterministic inference refuses trtllm_mha
    log = DATA / "real_logs_2" / "sglang_pr34684_deterministic_trtllm.log"
    assert screen(monkeypatch, ["log", str(log)], None, 13) == [
        "argtrace log sglang_pr34684_deterministic_trtllm.log — sglang ? (log)",
        "Diagnosis: 1 error; 1 more finding follows from them",
        "ERROR LG011 line 2 Launch 1 died during argument validation with: ValueError:",
        "  Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'triton'] attention",
        "  backends are supported for deterministic inference, but you explicitly",
        "  specified 'trtllm_mha'.. sglang raises it in _deterministic_attention_backend",
        "  (sglang/srt/arg_groups/overrides.py) when `view.attention_backend not in…",
        "  fix: Change --attention-backend so that `view.attention_backend not in",
        "       DETERMINISTIC_ATTENTION_BACKEND_CHOICES` no longer holds (`argtrace why`",
        "       on the message shows the site in every release).",
        "  rests on: line 2 (observed): ValueError: Currently only ['ascend', 'fa3', 'fa…",
        "  explains 1 finding: LG001",
        "Log sglang_pr34684_deterministic_trtllm.log: 2 lines, 362 bytes, 1 launch(es), ",
    ]
    # before: the header and the Log line each ran over three lines (the absolute path), and LG001
    # "has no `server_args=` line ... Fix the error shown (see its own finding)" was a second error


def test_the_json_keeps_every_finding_of_a_folded_log(monkeypatch: pytest.MonkeyPatch) -> None:
    log = DATA / "real_logs_2" / "sglang_pr34684_deterministic_trtllm.log"
    report = run_cli(["log", "--format", "json", str(log)]).json
    [cause] = report["findings"]
    assert (cause["code"], cause["severity"]) == ("LG011", "error")
    assert [(c["code"], c["severity"], c["at"]) for c in cause["consequences"]] == [
        ("LG001", "error", f"{log}:2")
    ]
