"""``argtrace check vllm.conf``: a Supervisor configuration as the launch carrier
(layers/transport/supervisor.py).

The oracle is supervisord's own reading: the real ``supervisor`` package (4.3.0, the dev extra) reads each
configuration with ``ServerOptions.read_config`` and splits each command as ``Subprocess.get_execv_args``
does; argtrace's reading must give the same argv, environment and directory, and refuse what supervisord
refuses with its words. Then the findings ``check`` makes of them (TP098-TP100, TP013), and correct files
that must stay clean.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from supervisor.options import ServerOptions

from argtrace.layers.transport.manifests import manifest_kind
from argtrace.layers.transport.supervisor import ConfigProblem, read_programs
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "supervisor"


Read = list[tuple[list[str], dict[str, str], str | None]]


def supervisord_reads(path: Path, environ: dict[str, str]) -> Read:
    """Each process's argv, environment and directory as supervisord makes them (its own code)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environ)
    try:
        options = ServerOptions()  # takes ENV_X from os.environ, as supervisord does at start
    finally:
        os.environ.clear()
        os.environ.update(saved)
    options.configfile = str(path)
    options.here = str(path.parent)
    section = options.read_config(str(path))
    return [
        (shlex.split(p.command), dict(p.environment or {}), p.directory)
        for group in section.process_group_configs
        for p in group.process_configs
    ]


def argtrace_reads(path: Path, environ: dict[str, str]) -> Read:
    programs = read_programs(str(path), path.read_text(), environ)
    return [(list(p.argv), dict(p.environment), p.directory) for p in programs]


VLLM = "/opt/venv/bin/vllm serve Qwen/Qwen3-0.6B"
HEAD = "[supervisord]\nnodaemon=true\n\n"

# (name, configuration, supervisord's environment); each read by both
AGREE = [
    (
        "environment of both sections, ENV_X and a directory",
        HEAD.replace("nodaemon=true", 'nodaemon=true\nenvironment=HF_HOME="/data/hf"')
        + f"[program:vllm]\ncommand={VLLM.replace('Qwen/Qwen3-0.6B', '%(ENV_MODEL_PATH)s')} --port 8000\n"
        'directory=/workspace\nenvironment=HF_TOKEN="hf_x",CUDA_VISIBLE_DEVICES="0,1"\n',
        {"MODEL_PATH": "/models/qwen"},
    ),
    (
        "continuation lines and inline comments",
        HEAD + f"[program:vllm]\ncommand={VLLM}\n    --port 8000   ; the API port\n"
        "    --served-model-name a#b # kept: no blank before the #\nautostart=true ; comment\n",
        {},
    ),
    (
        # Supervisor/supervisor#1227, case 1: [supervisord] environment= is an ENV_X for every program
        "ENV_X from [supervisord] environment= (supervisor#1227)",
        '[supervisord]\nenvironment = FOO="whatever"\n\n[program:foo]\ncommand = %(ENV_FOO)s\n',
        {},
    ),
    (
        # Supervisor/supervisor#1227, case 2: a program's own environment= is an ENV_X of its command
        "ENV_X from the program's environment= (supervisor#1227)",
        '[supervisord]\n\n[program:foo]\ncommand = %(ENV_FOO)s\nenvironment = FOO="whatever"\n',
        {},
    ),
    (
        "numprocs with process_num in the port",
        HEAD + f"[program:vllm]\ncommand={VLLM} --port 80%(process_num)02d\n"
        "process_name=%(program_name)s_%(process_num)d\nnumprocs=2\nnumprocs_start=1\n",
        {},
    ),
    (
        "bash -c with its quotes, %% and here",
        HEAD + '[program:vllm]\ncommand=/bin/bash -c "exec vllm serve m --gpu-memory-utilization 0.9 '
        '--chat-template %(here)s/t.jinja --override-generation-config \'{\\"x\\": \\"90%%\\"}\'"\n',
        {},
    ),
    (
        "a quoted comma in environment=",
        HEAD + f"[program:vllm]\ncommand={VLLM}\n"
        'environment=CUDA_VISIBLE_DEVICES="0,1",VLLM_LOGGING_LEVEL=DEBUG\n',
        {},
    ),
    ("the SageMaker configuration", (DATA / "sagemaker_llm_engine.conf").read_text(), {}),
]


@pytest.mark.parametrize(("name", "text", "environ"), AGREE, ids=[case[0] for case in AGREE])
def test_argtrace_reads_a_configuration_as_supervisord_does(
    tmp_path: Path, name: str, text: str, environ: dict[str, str]
) -> None:
    path = tmp_path / "supervisord.conf"
    path.write_text(text)
    assert argtrace_reads(path, environ) == supervisord_reads(path, environ)


# (name, configuration, what argtrace says supervisord says: the start of its message)
REFUSED = [
    (
        "a name expansion does not know (supervisor#909)",
        (DATA / "supervisor909_format_string.conf").read_text(),
        "Format string '%(MY_PATH)s/java -jar /opt/demo-0.0.1-SNAPSHOT.jar' for 'program:demo.command' "
        "contains names ('MY_PATH') which cannot be expanded.",
    ),
    (
        "a percent sign",
        f"[program:vllm]\ncommand={VLLM} --gpu-memory-utilization 90%\n",
        f"Format string '{VLLM} --gpu-memory-utilization 90%' for 'program:vllm.command' is badly formatted:",
    ),
    (
        "an environment= that is no list of pairs",
        f"[program:vllm]\ncommand={VLLM}\nenvironment=CUDA_VISIBLE_DEVICES\n",
        "Unexpected end of key/value pairs in value 'CUDA_VISIBLE_DEVICES'",
    ),
    (
        "numprocs without process_num in the name",
        f"[program:vllm]\ncommand={VLLM}\nnumprocs=2\n",
        "%(process_num) must be present within process_name when numprocs > 1",
    ),
    (
        "no command",
        "[program:vllm]\ndirectory=/w\n",
        "program section program:vllm does not specify a command",
    ),
]


@pytest.mark.parametrize(("name", "text", "message"), REFUSED, ids=[case[0] for case in REFUSED])
def test_what_supervisord_refuses_argtrace_refuses_with_its_words(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / "supervisord.conf"
    # supervisord checks a log file's directory before the command: the reporter's existed
    path.write_text("[supervisord]\n" + text.replace("/var/log/supervisor", str(tmp_path)))
    with pytest.raises(ValueError) as supervisord:
        supervisord_reads(path, {})
    with pytest.raises(ConfigProblem) as argtrace:
        argtrace_reads(path, {})
    assert str(argtrace.value).startswith(message)
    assert str(supervisord.value).startswith(message)


def test_an_unclosed_quote_is_refused_when_the_program_starts(tmp_path: Path) -> None:
    # supervisord reads the file, then fails to split the command (process.py: BadCommand)
    path = tmp_path / "supervisord.conf"
    path.write_text(f"[supervisord]\n[program:vllm]\ncommand={VLLM} --served-model-name 'qwen\n")
    [(command, _env, _dir)] = [(p.command, 0, 0) for g in _groups(path) for p in g.process_configs]
    with pytest.raises(ValueError, match="No closing quotation"):
        shlex.split(command)
    with pytest.raises(ConfigProblem, match=r"can't parse command .*: No closing quotation"):
        argtrace_reads(path, {})


def _groups(path: Path) -> Any:
    options = ServerOptions()
    options.configfile, options.here = str(path), str(path.parent)
    return options.read_config(str(path)).process_group_configs


# --- what check makes of it -------------------------------------------------------------------------------


def check(tmp_path: Path, text: str, *options: str, name: str = "vllm.conf") -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def alarms(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (f["code"], f["severity"], f["message"])
        for f in report["findings"]
        if f["severity"] in ("error", "warning")
    ]


def test_the_sagemaker_configuration_is_read_and_clean(tmp_path: Path) -> None:
    report = check(tmp_path, (DATA / "sagemaker_llm_engine.conf").read_text())
    assert alarms(report) == []
    [server] = report["servers"]
    assert [w["text"] for w in server["words"]] == [
        "vllm", "serve", "--port", "8080", "--model", "Qwen/Qwen3-0.6B", "--max-model-len", "4096",
    ]  # fmt: skip
    assert report["transport"]["hops"][0]["via"] == "supervisor"
    assert report["transport"]["hops"][0]["program"] == "llm-engine"


def test_a_refused_configuration_is_one_error(tmp_path: Path) -> None:
    report = check(tmp_path, (DATA / "supervisor909_format_string.conf").read_text(), name="demo.conf")
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("TP098", "error")]
    assert report["findings"][0]["message"].startswith(
        "supervisord refuses this configuration (Format string '%(MY_PATH)s/java"
    )
    assert report["findings"][0]["message"].endswith("it starts no program, the server included")


def test_an_assignment_before_the_command_is_the_program_supervisor_looks_for(tmp_path: Path) -> None:
    # Supervisor/supervisor#989: `command=LD_PRELOAD=... python x.py` is not run; the fix is environment=
    report = check(tmp_path, f"[program:vllm]\ncommand=CUDA_VISIBLE_DEVICES=0 {VLLM} --port 8000\n")
    assert alarms(report) == [
        (
            "TP100",
            "error",
            "supervisor executes `CUDA_VISIBLE_DEVICES=0` as the command of program vllm (no shell reads "
            "`NAME=value`): it finds no such command, so the server never starts",
        )
    ]
    fix = next(f["fix"] for f in report["findings"] if f["code"] == "TP100")
    assert fix == (
        "Move CUDA_VISIBLE_DEVICES from `command=` to the program's `environment=` "
        '(CUDA_VISIBLE_DEVICES="0") at vllm.conf:2.'
    )


def test_shell_syntax_without_a_shell_is_one_cause(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        "[program:vllm]\ncommand=/opt/venv/bin/vllm serve $MODEL_PATH --port 8000 > /var/log/vllm.log 2>&1\n"
        'environment=MODEL_PATH="/models/qwen"\n',
    )
    tp013 = [f for f in report["findings"] if f["code"] == "TP013"]
    assert [(f["severity"], f["message"]) for f in tp013] == [
        (
            "error",
            "program vllm's `command=` is run without a shell (supervisor splits it and executes it): no "
            "shell runs it, so '$MODEL_PATH' is passed to the program as a literal argument",
        )
    ]
    assert tp013[0]["fix"] == (
        "Write `%(ENV_MODEL_PATH)s` for `$MODEL_PATH`: supervisor expands it from its own environment and "
        "`environment=` lines. Drop the redirection: `stdout_logfile=` (with `redirect_stderr=true`) takes "
        "the output."
    )
    # the parser's refusals of `>`, its target and `2>&1` follow from it: one cause on the first screen
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["TP013"]
    assert [c["code"] for c in tp013[0]["consequences"]] == ["PA001", "PA001", "PA001"]


def test_an_unknown_env_expansion_is_an_assumption_not_an_error(tmp_path: Path) -> None:
    text = f"[program:vllm]\ncommand={VLLM} --tensor-parallel-size %(ENV_TP)s\n"
    report = check(tmp_path, text)
    assert alarms(report) == []
    tp099 = next(f for f in report["findings"] if f["code"] == "TP099")
    assert (tp099["severity"], tp099["basis"]) == ("info", "assumed")
    assert tp099["message"].startswith(
        "`%(ENV_TP)s` in program vllm's command is TP of supervisord's own environment"
    )
    given = check(tmp_path, text, "--env", "TP=2")
    assert [f["code"] for f in given["findings"] if f["code"].startswith("TP")] == []
    assert [w["text"] for w in given["servers"][0]["words"]][-2:] == ["--tensor-parallel-size", "2"]


def test_secrets_of_environment_are_redacted(tmp_path: Path) -> None:
    token = "hf_abcdefghijklmnopqrstuvwxyz1234"
    report = check(tmp_path, f'[program:vllm]\ncommand={VLLM}\nenvironment=HF_TOKEN="{token}"\n')
    assert token not in str(report)
    assert report["process"]["env"]["HF_TOKEN"].startswith("<redacted:")


def test_a_script_that_writes_a_configuration_stays_a_script() -> None:
    script = b"cat > /etc/supervisor/conf.d/vllm.conf <<'EOF'\n[program:vllm]\ncommand=vllm serve m\nEOF\n"
    assert manifest_kind(script) is None
    assert manifest_kind(b"; supervisor\n[program:vllm]\ncommand=vllm serve m\n") == "supervisor"
    assert manifest_kind(b"[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n") == "systemd"


# --- fixes, proven by the re-check -------------------------------------------------------------------------


def test_the_assignment_moves_to_environment_and_the_recheck_proves_it(tmp_path: Path) -> None:
    report = check(
        tmp_path, f"[program:vllm]\ncommand=CUDA_VISIBLE_DEVICES=0 {VLLM} --port 8000\nautostart=true\n"
    )
    tp100 = next(f for f in report["findings"] if f["code"] == "TP100")
    assert tp100["fix_verified"] is True
    assert tp100["fix_edits"] == [
        {"file": "vllm.conf", "start": "2:9", "end": "2:32", "replacement": ""},
        {
            "file": "vllm.conf",
            "start": "2:84",
            "end": "2:84",
            "replacement": '\nenvironment=CUDA_VISIBLE_DEVICES="0"',
        },
    ]
    result = run_cli(["fix", "--write", "vllm.conf"], cwd=tmp_path)
    assert result.status == 1, result.stderr  # docs/fixes.md: 1, fixes written
    assert (tmp_path / "vllm.conf").read_text() == (
        f'[program:vllm]\ncommand={VLLM} --port 8000\nenvironment=CUDA_VISIBLE_DEVICES="0"\nautostart=true\n'
    )


def test_an_existing_environment_line_takes_the_assignment(tmp_path: Path) -> None:
    report = check(tmp_path, f'[program:vllm]\nenvironment=HF_HOME="/hf"\ncommand=NCCL_DEBUG=INFO {VLLM}\n')
    tp100 = next(f for f in report["findings"] if f["code"] == "TP100")
    assert tp100["fix_verified"] is True
    assert tp100["fix_edits"][1] == {
        "file": "vllm.conf", "start": "2:26", "end": "2:26", "replacement": ',NCCL_DEBUG="INFO"'
    }  # fmt: skip


def test_a_dollar_reference_becomes_supervisors_expansion(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        "[program:vllm]\ncommand=/opt/venv/bin/vllm serve ${MODEL_PATH} --port 8000\n"
        'environment=MODEL_PATH="/m"\n',
    )
    tp013 = next(f for f in report["findings"] if f["code"] == "TP013")
    assert tp013["fix_verified"] is True
    assert tp013["fix_edits"] == [
        {"file": "vllm.conf", "start": "2:34", "end": "2:47", "replacement": "%(ENV_MODEL_PATH)s"}
    ]


def test_lint_finds_supervisor_configurations_and_json_manifests() -> None:
    from argtrace.ci.lint import launch_kind

    conf = (DATA / "sagemaker_llm_engine.conf").read_bytes()
    assert launch_kind(Path("deploy/llm-engine.conf"), conf) == "supervisor"
    deployment = (
        b'{"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"image": "vllm/vllm-openai:v0.10.0"}}'
    )
    assert launch_kind(Path("deploy/vllm.json"), deployment) == "kubernetes"
    assert launch_kind(Path("package.json"), b'{"name": "x", "scripts": {"serve": "vllm serve m"}}') is None
    python = b'import subprocess\nsubprocess.run(["vllm", "serve", "m"])\n'
    assert launch_kind(Path("serve.py"), python) == "python"
    assert launch_kind(Path("setup.py"), b"from setuptools import setup\nsetup()\n") is None


def test_include_names_the_files_supervisord_also_reads(tmp_path: Path) -> None:
    """TP103 (info): supervisord starts the included file's program too (its own reading, the oracle);
    argtrace reads the given file and says which files it did not."""
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "sglang.conf").write_text(
        "[program:sglang]\ncommand=python3 -m sglang.launch_server --model-path m\n"
    )
    main = tmp_path / "supervisord.conf"
    main.write_text(f"{HEAD}[include]\nfiles = conf.d/*.conf\n\n[program:vllm]\ncommand={VLLM}\n")
    assert [argv[:3] for argv, _env, _dir in supervisord_reads(main, {})] == [
        ["python3", "-m", "sglang.launch_server"],
        ["/opt/venv/bin/vllm", "serve", "Qwen/Qwen3-0.6B"],
    ]
    report = run_cli(["check", "--format", "json", "--no-resolve", "supervisord.conf"], cwd=tmp_path).json
    assert [s["argv"][:2] for s in report["servers"]] == [["/opt/venv/bin/vllm", "serve"]]
    tp103 = [f for f in report["findings"] if f["code"] == "TP103"]
    assert [(f["code"], f["severity"], f["at"], f["message"]) for f in tp103] == [
        (
            "TP103",
            "info",
            "supervisord.conf:5",
            "supervisord also starts the programs of `[include] files = conf.d/*.conf` (1 file(s) match "
            "here: `conf.d/sglang.conf`); argtrace read only this file, so a server started there is not "
            "checked from here",
        )
    ]
