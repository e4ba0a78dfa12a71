"""Differential tests: real bash runs each corpus script with the server commands replaced by recorders on
PATH; argtrace's static prediction must equal the recording exactly (argv words and environment)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from tests.shell.recorder import NAMES, fold_repeats, make_recorders, read_records

DATA = Path(__file__).resolve().parents[1] / "data" / "shell"
CORPUS = DATA / "corpus"  # realistic correct launch scripts
HAZARDS = DATA / "hazards"  # broken ones; ``# expect:`` lists the error/warning codes they must produce
SCRIPTS = sorted(CORPUS.glob("*.sh"))
HAZARD_SCRIPTS = sorted(HAZARDS.glob("*.sh"))
IGNORED_ENV = {"_"}  # bash sets $_ to the resolved path of the command


def header(text: str, key: str) -> str | None:
    for line in text.splitlines()[:15]:
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return None


def run_case(script: Path, tmp_path: Path, shellcheck: bool = False) -> tuple[list[str], list[str], Any]:
    work = tmp_path / "work"
    shutil.copytree(script.parent, work)
    bin_dir = tmp_path / "bin"
    rec_dir = tmp_path / "rec"
    make_recorders(bin_dir, rec_dir)
    text = script.read_text(encoding="utf-8", errors="surrogateescape")
    args = shlex.split(header(text, "args") or "")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    for item in shlex.split(header(text, "env") or ""):
        k, _, v = item.partition("=")
        env[k] = v
    subprocess.run(
        ["/bin/bash", script.name, *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
        check=False,
    )
    records = read_records(rec_dir)
    result = analyze_script(
        ScriptSource(script.name, (work / script.name).read_bytes(), work / script.name),
        args,
        env,
        arg0=script.name,
        run_shellcheck=shellcheck,
        cwd=str(work),
    )
    from argtrace.frameworks.detect import detect_server

    predicted = []
    for s in result.servers:
        texts = [w.text for w in s.argv]
        det = detect_server([t or "" for t in texts])
        ci = det.command_index if det else 0
        if Path(texts[0] or "").name in NAMES:
            ci = 0  # the wrapper itself is a recorder (numactl, taskset)
        env_pred = {k: v.value for k, v in s.env.items() if k not in IGNORED_ENV}
        predicted.append(
            json.dumps(
                {"cmd": Path(texts[ci] or "?").name, "argv": texts[ci + 1 :], "env": env_pred}, sort_keys=True
            )
        )
    recorded = [
        json.dumps(
            {"cmd": r.name, "argv": r.argv, "env": {k: v for k, v in r.env.items() if k not in IGNORED_ENV}},
            sort_keys=True,
        )
        for r in records
    ]
    repeated = {p for p, s in zip(predicted, result.servers, strict=True) if s.repeated}
    return sorted(predicted), sorted(fold_repeats(recorded, repeated)), result


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_prediction_equals_bash(script: Path, tmp_path: Path) -> None:
    predicted, recorded, _result = run_case(script, tmp_path)
    assert recorded, "the corpus script must start at least one server"
    assert predicted == recorded


@pytest.mark.parametrize("script", HAZARD_SCRIPTS, ids=[s.name for s in HAZARD_SCRIPTS])
def test_hazard_prediction_equals_bash(script: Path, tmp_path: Path) -> None:
    predicted, recorded, _result = run_case(script, tmp_path)
    assert predicted == recorded


@pytest.mark.parametrize("script", HAZARD_SCRIPTS, ids=[s.name for s in HAZARD_SCRIPTS])
def test_hazard_findings(script: Path, tmp_path: Path) -> None:
    text = script.read_text(encoding="utf-8", errors="replace")
    expected = set((header(text, "expect") or "").split())
    _, _, result = run_case(script, tmp_path)
    own = {f.code for f in result.findings if f.severity in ("error", "warning")}
    assert own == expected - {"SH019"}
    assert expected <= {f.code for f in result.findings}


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_correct_scripts_have_no_error_or_warning(script: Path, tmp_path: Path) -> None:
    """A correct launch script yields no error and no warning, shellcheck's opinions included."""
    _, _, result = run_case(script, tmp_path, shellcheck=True)
    bad = [(f.code, f.at, f.message) for f in result.findings if f.severity in ("error", "warning")]
    assert bad == []


def test_corpus_is_large_enough() -> None:
    assert len(SCRIPTS) + len(HAZARD_SCRIPTS) >= 60
