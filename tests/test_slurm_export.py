"""``srun --export`` and GPUs per node under SLURM (``layers/slurm.py``: ``Export``; PA036-PA038).

What reaches each task follows srun(1) (SLURM 23-24, ``--export``): ALL (the default) passes the caller's
variables; NONE only ``SLURM_*``; a list the ``SLURM_*`` ones, the named ones and its ``NAME=value``
assignments; ``ALL,NAME=value`` everything, with the caller's own value winning over the assignment. A
step inherits ``#SBATCH --export`` through ``SLURM_EXPORT_ENV``. The batch scripts below are the SGLang
two-node launch under SLURM (https://docs.sglang.ai/references/multi_node.html, its SLURM example,
reconstructed): one task per node, each expanding its own ``$SLURM_NODEID`` inside ``srun bash -c``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.slurm import Export, srun_export
from tests.conftest import run_cli

SG = "python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16 --dist-init-addr $HEAD:5000"


def _job(srun: str, directives: str = "") -> str:
    return (
        "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\n"
        f"{directives}export HEAD=node0\nexport NCCL_DEBUG=WARN\n"
        f"{srun} bash -c '{SG} --nnodes 2 --node-rank $SLURM_NODEID'\n"
    )


def _report(tmp_path: Path, text: str, version: str = "0.5.10.post1") -> dict[str, Any]:
    script = tmp_path / "job.sh"
    script.write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", version, str(script)]
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _judged(report: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [(f["code"], f["setting"], f["message"]) for f in report["findings"] if f["severity"] != "info"]


def _addr(report: dict[str, Any]) -> str:
    argv = report["servers"][0]["argv"]
    return str(argv[argv.index("--dist-init-addr") + 1])


# what srun sets in each task from -N 2 (srun(1)): one task per node by default
_STEP = (("SLURM_STEP_NUM_NODES", "2"), ("SLURM_STEP_NUM_TASKS", "2"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ALL", Export(True, (), (), "--export=ALL", _STEP)),  # nothing filtered; the step's counts set
        ("NONE", Export(False, (), (), "--export=NONE", _STEP)),
        (
            "HEAD,NCCL_DEBUG=INFO",
            Export(False, ("HEAD",), (("NCCL_DEBUG", "INFO"),), "--export=HEAD,NCCL_DEBUG=INFO", _STEP),
        ),
        (
            "ALL,NCCL_DEBUG=INFO",
            Export(True, (), (("NCCL_DEBUG", "INFO"),), "--export=ALL,NCCL_DEBUG=INFO", _STEP),
        ),
    ],
)
def test_the_export_forms(value: str, expected: Export | None) -> None:
    assert srun_export(["srun", "-N", "2", f"--export={value}"], {}) == expected


def test_the_step_counts_srun_sets_in_each_task() -> None:
    job = {"SLURM_NNODES": "2", "SLURM_NTASKS": "8", "SLURM_NTASKS_PER_NODE": "4"}
    inherited = srun_export(["srun", "bash"], job)
    assert inherited is not None and inherited.sets == (
        ("SLURM_STEP_NUM_NODES", "2"),
        ("SLURM_STEP_NUM_TASKS", "8"),
    )
    one_node = srun_export(["srun", "-N1", "-n", "1"], job)
    assert one_node is not None and one_node.sets == (
        ("SLURM_STEP_NUM_NODES", "1"),
        ("SLURM_STEP_NUM_TASKS", "1"),
    )
    assert srun_export(["srun", "bash"], {}) is None  # nothing known: nothing set, nothing filtered


def test_what_each_form_passes_on() -> None:
    env = {"HEAD": "node0", "NCCL_DEBUG": "WARN", "SLURM_NNODES": "2", "PATH": "/bin"}
    none, listed, everything = (
        srun_export(["srun", "--export", v], {}) for v in ("NONE", "HEAD,X=1", "ALL,NCCL_DEBUG=INFO,X=1")
    )
    assert none is not None and listed is not None and everything is not None
    assert none.apply(env, str) == {"SLURM_NNODES": "2"}
    assert listed.apply(env, str) == {"HEAD": "node0", "SLURM_NNODES": "2", "X": "1"}
    # with ALL the caller's own NCCL_DEBUG wins over the assignment (srun(1))
    assert everything.apply(env, str) == {**env, "X": "1"}


def test_a_step_inherits_the_jobs_export() -> None:
    assert srun_export(["srun"], {"SLURM_EXPORT_ENV": "NONE"}) == Export(
        False, (), (), "SLURM_EXPORT_ENV=NONE"
    )
    assert srun_export(["srun", "--export=ALL"], {"SLURM_EXPORT_ENV": "NONE"}) is None


def test_the_default_export_passes_the_rendezvous_address(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun"))
    assert _addr(report) == "node0:5000"
    assert _judged(report) == []


def test_export_none_leaves_the_tasks_without_the_address(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun --export=NONE"))
    assert _addr(report) == ":5000"
    assert _judged(report) == [
        (
            "PA037",
            "HEAD",
            "srun --export=NONE keeps $HEAD from the tasks, but each task's shell reads it: there it is "
            "unset (empty)",
        )
    ]


def test_a_list_that_names_the_variable_passes_it(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun --export=HEAD,NCCL_DEBUG=INFO"))
    assert _addr(report) == "node0:5000"
    assert _judged(report) == []


def test_sbatch_export_none_reaches_the_step(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun", "#SBATCH --export=NONE\n"))
    assert [(c, s) for c, s, _ in _judged(report)] == [("PA037", "HEAD")]
    assert _judged(report)[0][2].startswith("srun SLURM_EXPORT_ENV=NONE keeps $HEAD from the tasks")


def test_a_server_right_under_srun_gets_the_exported_env(tmp_path: Path) -> None:
    text = (
        "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gpus-per-node=8\nexport NCCL_DEBUG=WARN\n"
        "export HF_HOME=/data\nsrun --export=ALL,NCCL_DEBUG=INFO,VLLM_LOGGING_LEVEL=DEBUG "
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8\n"
    )
    env = _report(tmp_path, text, version="0.33.0")["process"]["env"]
    assert (env["NCCL_DEBUG"], env["VLLM_LOGGING_LEVEL"], env["HF_HOME"]) == ("WARN", "DEBUG", "/data")
    text = text.replace("--export=ALL,NCCL_DEBUG=INFO,", "--export=NCCL_DEBUG=INFO,")
    env = _report(tmp_path, text, version="0.33.0")["process"]["env"]
    assert (env["NCCL_DEBUG"], env["VLLM_LOGGING_LEVEL"], "HF_HOME" in env) == ("INFO", "DEBUG", False)


def test_srun_gres_gives_fewer_gpus_than_each_node_needs(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun --gres=gpu:4"))
    assert _judged(report) == [
        (
            "PA036",
            "tp_size",
            "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: srun gives each "
            "node 4",
        )
    ]


def test_the_jobs_gpus_per_node_fit_the_sizes(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun").replace("--gpus-per-node=8", "--gpus-per-node=4"))
    assert _judged(report) == [
        (
            "PA036",
            "tp_size",
            "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: the job gives each "
            f"node 4 ({tmp_path / 'job.sh'}:4)",
        )
    ]


def test_all_with_an_assignment_to_an_exported_variable_is_no_override(tmp_path: Path) -> None:
    report = _report(tmp_path, _job("srun --export=ALL,NCCL_DEBUG=INFO"))
    assert _judged(report) == [
        (
            "PA038",
            "NCCL_DEBUG",
            "the batch shell exports NCCL_DEBUG=WARN and srun --export=ALL,NCCL_DEBUG=INFO keeps the "
            "caller's value (ALL wins over the assignment): the tasks get WARN, not INFO",
        )
    ]
    # without ALL the assignment is what the tasks get: no finding
    assert _judged(_report(tmp_path, _job("srun --export=HEAD,NCCL_DEBUG=INFO"))) == []


def test_the_ignored_assignment_of_a_secret_is_redacted(tmp_path: Path) -> None:
    text = (
        "#!/bin/bash\n#SBATCH --nodes=1\nexport HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n"
        "srun --export=ALL,HF_TOKEN=hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210 vllm serve Qwen/Qwen3-8B\n"
    )
    report = _report(tmp_path, text, version="0.33.0")
    assert "hf_AbCd" not in json.dumps(report) and "hf_ZyXw" not in json.dumps(report)
    assert [(c, s) for c, s, _ in _judged(report)] == [("PA038", "HF_TOKEN")]


@pytest.mark.parametrize(
    ("srun", "address"),
    [
        # `env` runs in each task, after srun chose its environment: HEAD reaches the task's shell
        ("srun --export=NONE env HEAD=node7", "node7:5000"),
        # `env` before srun is the caller's: --export=NONE drops it like any other variable
        ("env HEAD=node7 srun --export=NONE", ":5000"),
    ],
)
def test_an_env_assignment_inside_the_task_survives_export_none(
    tmp_path: Path, srun: str, address: str
) -> None:
    report = _report(tmp_path, _job(srun))
    assert _addr(report) == address


def test_task_assignments_only_after_srun() -> None:
    from argtrace.layers.slurm import task_assignments

    words = ["env", "A=1", "srun", "--export=NONE", "env", "B=2"]
    export = srun_export(words, {})
    assert export is not None
    assert task_assignments(export, words, [(1, "A", "1"), (5, "B", "2")]) == Export(
        False, at="--export=NONE", sets=(("B", "2"),)
    )
    assert task_assignments(None, words, [(5, "B", "2")]) is None
