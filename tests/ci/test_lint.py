"""``argtrace lint``: which files are launch files, no script arguments (one SH030 per script), one report
and one exit status for a tree, ``--jobs`` giving the same report, suppressions per file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.ci.test_formats import validate_sarif
from tests.conftest import REPO, run_cli

FAST = ("--no-resolve", "--no-shellcheck")

SBATCH = """#!/bin/bash
#SBATCH --gres=gpu:2
#SBATCH --time=01:00:00
vllm serve /models/qwen --tensor-parallel-size 2 --port 8000
"""
COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:v0.5.23-cu129
    command: python3 -m sglang.launch_server --model-path /m --port 30000 --tp-szie 2
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
spec:
  template:
    spec:
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.23-cu129
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "/m", "--port", "30000"]
"""
# What `helm template` prints: documents headed by the template they came from.
HELM = "---\n# Source: sglang/templates/deployment.yaml\n" + DEPLOYMENT


def make_tree(root: Path) -> None:
    (root / "scripts").mkdir(parents=True)
    (root / "deploy" / "k8s").mkdir(parents=True)
    (root / "deploy" / "rendered").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "launch_mtp.sh", root / "scripts" / "launch_mtp.sh")
    (root / "scripts" / "job.sbatch").write_text(SBATCH)
    (root / "scripts" / "hello.sh").write_text("#!/bin/bash\necho hello\n")  # starts no server
    (root / "scripts" / "serve").write_text("#!/usr/bin/env bash\nexec vllm serve /m --port 8000\n")
    (root / "deploy" / "compose.yaml").write_text(COMPOSE)
    (root / "deploy" / "k8s" / "sglang.yaml").write_text(DEPLOYMENT)
    (root / "deploy" / "rendered" / "all.yaml").write_text(HELM)
    (root / "deploy" / "values.yaml").write_text("image: lmsysorg/sglang:v0.5.23\n")  # not a manifest
    for skipped in (".git", "node_modules", ".venv"):
        (root / skipped).mkdir()
        shutil.copy(REPO / "examples" / "launch_mtp.sh", root / skipped / "launch.sh")


def _lint(root: Path, *argv: str) -> tuple[int, dict, str]:
    result = run_cli(["lint", "--format", "json", *FAST, *argv], cwd=root)
    return result.status, (json.loads(result.stdout) if result.stdout else {}), result.stderr


def test_finds_the_launch_files_of_a_tree(tmp_path: Path) -> None:
    from argtrace.ci.lint import find_launch_files
    from tests.conftest import _chdir

    make_tree(tmp_path)
    with _chdir(tmp_path):
        found = [(f.path, f.kind) for f in find_launch_files(["."])]
        given = [(f.path, f.kind) for f in find_launch_files(["scripts/hello.sh", "deploy"])]
    assert found == [
        ("deploy/compose.yaml", "compose"),
        ("deploy/k8s/sglang.yaml", "kubernetes"),
        ("deploy/rendered/all.yaml", "helm"),
        ("scripts/job.sbatch", "slurm"),
        ("scripts/launch_mtp.sh", "script"),
        ("scripts/serve", "script"),
    ]
    # A file named on the command line is always checked (pre-commit passes the staged files).
    assert given[0] == ("scripts/hello.sh", "given")
    assert [p for p, _ in given[1:]] == [
        "deploy/compose.yaml",
        "deploy/k8s/sglang.yaml",
        "deploy/rendered/all.yaml",
    ]


def test_one_report_one_status(tmp_path: Path) -> None:
    make_tree(tmp_path)
    status, data, stderr = _lint(tmp_path)
    assert (status, stderr) == (1, "")
    assert data["inputs"] == [
        "deploy/compose.yaml",
        "deploy/k8s/sglang.yaml",
        "deploy/rendered/all.yaml",
        "scripts/job.sbatch",
        "scripts/launch_mtp.sh",
        "scripts/serve",
    ]
    assert [f["kind"] for f in data["lint"]["files"]] == [
        "compose",
        "kubernetes",
        "helm",
        "slurm",
        "script",
        "script",
    ]
    by_file: dict[str, list[str]] = {}
    for finding, owner in zip(data["findings"], data["finding_inputs"], strict=True):
        by_file.setdefault(data["inputs"][owner], []).append(finding["code"])
    assert by_file["deploy/compose.yaml"] == ["PA001"]
    # No script arguments: one SH030 info, not PR006 (empty CUDA_VISIBLE_DEVICES) or SH026 (empty $PORT).
    assert by_file["scripts/launch_mtp.sh"] == ["SH030", "SH004", "PR011", "PA005"]
    sh030 = data["findings"][data["finding_inputs"].index(4)]
    assert sh030["severity"] == "info"
    assert sh030["message"] == (
        "scripts/launch_mtp.sh reads `$1`, `$2`; argtrace lint checks launch files without their arguments, "
        "so every use is unknown, not empty (the server gets them at 19:12): `argtrace check "
        "scripts/launch_mtp.sh ARGS...` checks real values"
    )
    # one use, one evidence line: the shell's SH018 at `$PORT` is the consequence of the parser's PA013 there
    assert [e["at"] for e in sh030["evidence"]] == ["scripts/launch_mtp.sh:19:12"]
    assert sh030["evidence"][0]["text"].startswith("PA013: the value of --port comes from $PORT (")
    assert data["notes"][-1] == "6 launch file(s) checked"


def test_jobs_give_the_same_report(tmp_path: Path) -> None:
    make_tree(tmp_path)
    _, one, _ = _lint(tmp_path, "--jobs", "1")
    status, two, _ = _lint(tmp_path, "--jobs", "3")
    assert status == 1
    assert two == one


def test_sarif_of_a_tree_and_per_file_suppression(tmp_path: Path) -> None:
    make_tree(tmp_path)
    compose = tmp_path / "deploy" / "compose.yaml"
    compose.write_text(COMPOSE.replace("    command:", "    # argtrace disable=PA001\n    command:"))
    result = run_cli(["lint", "--format", "sarif", *FAST, "deploy", "scripts/launch_mtp.sh"], cwd=tmp_path)
    log = json.loads(result.stdout)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert "deploy/compose.yaml" not in uris
    assert [r["ruleId"] for r in results] == ["SH030", "SH004", "PR011", "PA005"]
    assert set(uris) == {"scripts/launch_mtp.sh"}
    assert result.status == 1
    # Only the compose file, its one error suppressed: nothing left, exit 0.
    status, data, _ = _lint(tmp_path, "deploy/compose.yaml")
    assert (status, data["findings"], data["suppressed"]["count"]) == (0, [], 1)


def test_fail_on_never_and_a_missing_path(tmp_path: Path) -> None:
    make_tree(tmp_path)
    status, data, _ = _lint(tmp_path, "--fail-on", "never")
    assert status == 0 and data["findings"]
    result = run_cli(["lint", "nothing-here"], cwd=tmp_path)
    assert (result.status, result.stderr) == (2, "argtrace lint: nothing-here: no such file or directory\n")


def test_unreadable_file_is_exit_2_with_the_rest_checked(tmp_path: Path) -> None:
    import os

    make_tree(tmp_path)
    os.mkfifo(tmp_path / "pipe.sh")  # refused unopened, as by check
    status, data, _ = _lint(tmp_path, "scripts/launch_mtp.sh", "pipe.sh")
    files = data["lint"]["files"]
    assert [(f["path"], f["kind"]) for f in files] == [
        ("scripts/launch_mtp.sh", "script"),
        ("pipe.sh", "given"),
    ]
    assert files[1]["error"].startswith("pipe.sh")
    assert [f["code"] for f in data["findings"]] == ["SH030", "SH004", "PR011", "PA005"]
    assert data["notes"][-1] == "1 launch file(s) checked of 2"
    assert status == 2


def test_given_files_that_are_no_launch_files_are_skipped(tmp_path: Path) -> None:
    make_tree(tmp_path)
    workflow = (
        "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest\n"
    )
    (tmp_path / "ci.yml").write_text(workflow)
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\nRUN pip install sglang\n")
    (tmp_path / "notes.yml").write_text("title: notes\nitems: [a, b]\n")
    (tmp_path / "helper.sh").write_text("#!/bin/bash\nexport PORT=30000\n")  # a script: always checked
    status, data, _ = _lint(tmp_path, "ci.yml", "Dockerfile", "notes.yml", "helper.sh")
    # a workflow and a Dockerfile are launch carriers argtrace reads (the sixth carriers batch): checked,
    # and they start nothing; other YAML is skipped
    assert [(f["path"], f["kind"]) for f in data["lint"]["files"]] == [
        ("ci.yml", "workflow"),
        ("Dockerfile", "dockerfile"),
        ("notes.yml", "skipped"),
        ("helper.sh", "given"),
    ]
    assert [f["code"] for f in data["findings"]] == ["SH019"]
    assert data["notes"] == [
        "notes.yml: skipped: not a shell script, compose file or manifest",
        "3 launch file(s) checked of 4",
    ]
    assert status == 0
