"""TP109: a RayJob entrypoint that KubeRay's job submitter ends at its first list operator.

From KubeRay 1.3.0 on, the submitter runs `bash -c` on one string in which the entrypoint follows
`ray job submit ... --` unquoted (ray-project/kuberay v1.7.0, ray-operator/controllers/ray/common/job.go
BuildJobSubmitCommand: `cmd = append(cmd, "--", entrypoint, ";")`; rayjob_controller.go
configureSubmitterContainer: `container.Args = []string{strings.Join(jobCmd, " ")}`), so bash in the
submitter pod runs what follows a `;`/`&&`/`|` itself (kuberay#3802, #3929). The first test runs that string
for real with bash and stand-ins for `ray` and `vllm` that record where they ran; the others check that
argtrace says so, and only so."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.transport.test_kuberay import _check, _codes

RECORDER = (
    '#!/bin/sh\nprintf "%s\\n" "$(basename "$0") $*" >> "$RECORD"\n[ "$2" = status ] && exit 1\nexit 0\n'
)


def _submitter(entrypoint: str) -> str:
    """The submitter's `bash -c` string, word for word as KubeRay 1.7.0's BuildJobSubmitCommand builds it
    (K8sJobMode; the dashboard wait loop left out)."""
    address, job = "http://head-svc:8265", "job-1"
    words = ["if", "!", "ray", "job", "status", "--address", address, job, ">/dev/null", "2>&1", ";", "then"]
    words += ["ray", "job", "submit", "--address", address, "--no-wait", "--submission-id", job]
    words += [
        "--",
        entrypoint.strip(),
        ";",
        "fi",
        ";",
        "ray",
        "job",
        "logs",
        "--address",
        address,
        "--follow",
        job,
    ]
    return " ".join(words)


SUBMIT = "ray job submit --address http://head-svc:8265 --no-wait --submission-id job-1 -- "


@pytest.mark.parametrize(
    ("entrypoint", "ran"),
    [
        (
            "pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B",
            [
                "ray job status --address http://head-svc:8265 job-1",
                SUBMIT + "pip install -U hf_transfer",
                "vllm serve Qwen/Qwen3-8B",  # in the submitter pod
                "ray job logs --address http://head-svc:8265 --follow job-1",
            ],
        ),
        (
            "bash -c 'pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B'",
            [
                "ray job status --address http://head-svc:8265 job-1",
                # one word: the list reaches the head
                SUBMIT + "bash -c pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B",
                "ray job logs --address http://head-svc:8265 --follow job-1",
            ],
        ),
    ],
    ids=["list", "one_word"],
)
def test_what_the_submitters_bash_runs(tmp_path: Path, entrypoint: str, ran: list[str]) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("ray", "vllm", "pip"):
        (bin_dir / name).write_text(RECORDER)
        (bin_dir / name).chmod(0o755)
    record = tmp_path / "record"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RECORD": str(record)}
    subprocess.run(["/bin/bash", "-c", _submitter(entrypoint)], env=env, check=False, timeout=30)
    assert record.read_text().splitlines() == ran


_JOB = (
    "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: serve\nspec:\n  entrypoint: {entry}\n"
    "  rayClusterSpec:\n    headGroupSpec:\n      rayStartParams: {{}}\n      template:\n        spec:\n"
    "          containers:\n          - name: ray-head\n            image: vllm/vllm-openai:v0.10.2\n"
    "            resources:\n              limits:\n                nvidia.com/gpu: 2\n"
)


def test_a_server_after_the_operator_runs_in_the_submitter(tmp_path: Path) -> None:
    report = _check(tmp_path, _JOB.format(entry="pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B"))
    (tp109,) = [f for f in report["findings"] if f["code"] == "TP109"]
    assert tp109["severity"] == "warning"
    assert tp109["message"] == (
        "Only `pip install -U hf_transfer` of the RayJob's entrypoint reaches the cluster: `vllm serve "
        "Qwen/Qwen3-8B` runs in KubeRay's job submitter pod, without the cluster's GPUs (from KubeRay 1.3.0 "
        "on, which the manifest does not name, the submitter runs `bash -c '... ray job submit ... -- pip "
        "install -U hf_transfer && vllm serve Qwen/Qwen3-8B ;'`, the entrypoint pasted in unquoted)"
    )
    assert tp109["fix"].startswith("Make the list one word of the submit")


@pytest.mark.parametrize(
    "entry",
    [
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2",
        "bash -c 'pip install -U hf_transfer && vllm serve Qwen/Qwen3-8B'",
        "\"python -c 'import a; import b'\"",  # the `;` is inside quotes
        "vllm serve Qwen/Qwen3-8B 2>&1",  # a redirection's `&`
        '"vllm serve Qwen/Qwen3-8B  # warm; then serve"',  # a comment of bash's (quoted: not YAML's)
    ],
    ids=["one_command", "bash_c", "quoted", "redirection", "comment"],
)
def test_one_command_is_no_finding(tmp_path: Path, entry: str) -> None:
    assert "TP109" not in [code for code, _s in _codes(_check(tmp_path, _JOB.format(entry=entry)))]


def test_only_a_harmless_command_after_it_is_a_note(tmp_path: Path) -> None:
    report = _check(tmp_path, _JOB.format(entry="vllm serve Qwen/Qwen3-8B; echo done"))
    assert [(c, s) for c, s in _codes(report) if c == "TP109"] == [("TP109", "info")]
