"""The 2026-12-05 wrong-alarm sweep, tenth (fa31): working launches of 2025-2026 from sources argtrace had
not seen (each repository, path and URL grepped in tests/ and docs/ first): SGLang's cookbook pages per
model (2026-05) and vLLM's recipe pages not read before, AMD's Strix Halo playbooks (vLLM on ROCm, two
machines over Ray), the ATOM validation helper's ROCm scripts, a positional-argument SGLang starter, and a
DGX Spark owner's 2026 scripts (ssh strings holding `docker run`, a data-parallel head and its headless
worker, a script that writes its serve command from a here-document, copies it by scp and mounts it into
the container). Each file under ``tests/data/real_cases_fa31/`` is a reconstruction (its header names the
source at its commit and what it keeps; a Markdown page's header is an HTML comment), checked as a new
user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of
2025-2026 from new sources, 10th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa31"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "amdplaybooks_clustering_rccl_two_halos_ray_page.md": 1,
    "amdplaybooks_vllm_inference_page.md": 4,
    "atomhelper_sglang_qwen3_235b_tp8_ep8_page_size_1024_model_impl_atom.sh": 1,
    "atomhelper_vllm_dsr1_fp8_oot_underscore_flag_compilation_json_tee_bg.sh": 1,
    "realtmxi_start_sglang_positional_args_venv_python.sh": 1,
    "recipes_hunyuan_ocr_page.md": 1,
    "recipes_nemotron_nano_12b_v2_vl_page.md": 1,
    "recipes_qwen3_asr_page.md": 1,
    "sglcookbook_glm47_page.md": 3,
    "sglcookbook_glm5_page.md": 2,
    "sglcookbook_kimi_k25_page.md": 5,
    "sglcookbook_minimax_m25_page.md": 2,
    "sglcookbook_qwen36_page.md": 1,
    "sglcookbook_step3_vl_10b_page.md": 4,
    "tomdoerr_spark_dp_worker_headless_start_rank_1.sh": 1,
    "tomdoerr_spark_embeddings_ssh_docker_run_string_vols_variable.sh": 1,
    # was no server: the serve command is a file the script writes from a here-document, copies by scp and
    # binds with `docker run -v` into the container, whose `--entrypoint bash` runs it
    "tomdoerr_spark_fast_heredoc_scp_ssh_docker_run_mounted_serve_script.sh": 1,
    "tomdoerr_spark_launch_122b_fp8_recipe_generated_ld_preload_tp2_ray.sh": 1,
    "tomdoerr_spark_serve_27b_exec_one_line.sh": 1,
}
# right on the release it ran on, and rightly warned on the release assumed when none is named
_DP_HEAD = "tomdoerr_spark_dp_head_start_rank_0_internal_lb.sh"
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str, *options: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, tuple(options)))


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, _DP_HEAD])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


# --- a DP head written with --data-parallel-start-rank 0: right up to 0.27.1, refused from 0.28.0 ----------


def test_the_dp_head_is_warned_on_the_assumed_release_and_told_where_it_is_right() -> None:
    # the author ran it on vllm/vllm-openai:v0.17.0-cu130 ("DP native multi-node (Mar 2026, WORKING)"); on
    # 0.28.0+ the head becomes an external-LB rank and refuses the headless worker: kept, a real problem there
    (cause,) = alarms(report_of(_DP_HEAD))
    assert (cause["code"], cause["severity"], cause["basis"]) == ("PA054", "warning", "assumed")
    assert cause["message"].startswith(
        "--data-parallel-start-rank 0 on a start that is not --headless: vllm 0.33.0 takes it for a hybrid "
        "load-balanced node (EngineArgs.create_engine_config, which tests `data_parallel_start_rank is not "
        "None`, so rank 0 too; vllm 0.10.2-0.27.1 test the bare value, where rank 0 stays the internal-LB "
        "head), and with --data-parallel-size-local 1 switches it to external load balancing: "
    )


@pytest.mark.parametrize(("release", "warned"), [("0.17.0", False), ("0.27.1", False), ("0.28.0", True)])
def test_the_dp_head_on_a_named_release(release: str, warned: bool) -> None:
    report = report_of(_DP_HEAD, "--framework-version", release)
    assert [f["code"] for f in alarms(report)] == (["PA054"] if warned else [])


# --- an ssh string: what each of the local shell's expansions gave ----------------------------------------


def _check(tmp_path: Path, text: str) -> Any:
    (tmp_path / "run.sh").write_text(text)
    result = run_cli(["check", "--format", "json", "run.sh"], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def _said(report: dict[str, Any], code: str) -> list[str]:
    return [f["message"] for f in report["findings"] if f["code"] == code]


def test_two_adjacent_expansions_in_an_ssh_string_are_not_read_as_one_empty(tmp_path: Path) -> None:
    # was a TP001 error: `$A$B` read as A='' (the shortest cut of the word), "unset or empty"
    report = _check(tmp_path, '#!/bin/bash\nA=qwen; B=3\nssh node1 "vllm serve Qwen/$A$B --port 8000"\n')
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/qwen3", "--port", "8000"]]
    assert _said(report, "TP001") == []
    assert _said(report, "TP002") == [
        "`$A` in the command for node1 is expanded on this machine, not on the node",
        "`$B` in the command for node1 is expanded on this machine, not on the node",
    ]


def test_expansions_holding_spaces_are_not_cut_at_the_first_space(tmp_path: Path) -> None:
    # were "`$ENV` ... (to -e)", "`$VOLS` ... (to HF_HUB_OFFLINE=1)": the shortest cut of each value
    script = (
        '#!/bin/bash\nNAME=vllm-fast; ENV="-e HF_HUB_OFFLINE=1 -e OMP_NUM_THREADS=1"\n'
        'VOLS="-v /data:/data"; IMG=vllm/vllm-openai:v0.17.0\n'
        'ssh spark-2 "docker run -d --name $NAME --gpus all $ENV $VOLS $IMG Qwen/Qwen3-8B"\n'
    )
    report = _check(tmp_path, script)
    assert _said(report, "TP001") == []
    assert _said(report, "TP002") == [
        "`$NAME` in the command for spark-2 is expanded on this machine (to vllm-fast), not on the node",
        "`$ENV` in the command for spark-2 is expanded on this machine, not on the node",
        "`$VOLS` in the command for spark-2 is expanded on this machine, not on the node",
        "`$IMG` in the command for spark-2 is expanded on this machine, not on the node",
    ]


@pytest.mark.parametrize(
    ("raw", "word", "expected"),
    [
        ('"--port $P"', "--port 8000", [("$P", "8000")]),
        ('"$A-$B"', "x-y-z", [("$A", None), ("$B", None)]),  # either dash ends A
        ('"$A:$B"', "host:1", [("$A", "host"), ("$B", "1")]),
    ],
)
def test_the_part_each_expansion_gave(raw: str, word: str, expected: list[tuple[str, str | None]]) -> None:
    from argtrace.layers.transport.words import SPLIT_NOT_KNOWN, _local_expansions

    got = [(e, None if p == SPLIT_NOT_KNOWN else p) for e, p in _local_expansions(raw, word)]
    assert got == expected


# --- a launch script a `docker run` bind brings from the host ----------------------------------------------

_SERVE = '#!/bin/bash\nexec vllm serve Qwen/Qwen3-8B --port 8001 "$@"\n'


@pytest.mark.parametrize(
    ("options", "command", "servers"),
    [
        ("-v {here}/serve.sh:/serve.sh:ro --entrypoint bash", "/serve.sh --max-model-len 4096", 1),
        ("--mount type=bind,source={here}/serve.sh,target=/opt/serve.sh --entrypoint /opt/serve.sh", "", 1),
        ("-v {here}:/work --entrypoint bash", "/work/serve.sh --max-model-len 4096", 1),  # a directory
        ("-v scripts:/work --entrypoint bash", "/work/serve.sh", 0),  # a named volume: not this machine's
    ],
)
def test_a_docker_run_bind_of_a_launch_script_is_read(
    tmp_path: Path, options: str, command: str, servers: int
) -> None:
    (tmp_path / "serve.sh").write_text(_SERVE)
    run = f"docker run --gpus all {options.format(here=tmp_path)} vllm/vllm-openai:v0.17.0 {command}\n"
    report = _check(tmp_path, "#!/bin/bash\n" + run)
    argv = ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8001"]
    if "--max-model-len" in command:
        argv += ["--max-model-len", "4096"]
    assert [s["argv"] for s in report["servers"]] == [argv][:servers]
    assert alarms(report) == []


def test_a_script_written_from_a_here_document_is_what_scp_copies(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\nM=Qwen/Qwen3-8B\ncat > /tmp/fa31-serve.sh <<EOF\n#!/bin/bash\nexec vllm serve $M\nEOF\n"
        "scp /tmp/fa31-serve.sh node2:/tmp/serve.sh\n"
    )
    report = _check(tmp_path, script)
    (upload,) = report["transport"]["uploads"]
    assert (upload["host"], upload["path"]) == ("node2", "/tmp/serve.sh")
    assert upload["content"] == "#!/bin/bash\nexec vllm serve Qwen/Qwen3-8B\n"
