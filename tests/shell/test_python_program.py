"""A Python program a script runs (``python3 serve.py A``, ``./serve.py`` with a ``#!`` line naming Python) is
read for the servers it starts (layers/shell/pythonfile.py): its environment is what the script exports
and its command gives, its ``sys.argv`` the call's words. Each line is run for real by bash and Python
with a stand-in ``vllm`` on PATH that records its words; argtrace must predict exactly the servers the
stand-in saw, without running anything itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.transport.python_launch import read_python_launch, shell_expansion

RECORDER = """#!/bin/sh
printf '%s\\n' "$*" > "$RECORD_DIR/ran-$$"
"""
# the files each test directory holds (name -> text); all executable
FILES = {
    "serve.py": (
        "import os, subprocess, sys\n"
        'model = os.environ.get("MODEL", "org/default")\n'
        'subprocess.run(["vllm", "serve", model, "--tensor-parallel-size", sys.argv[1], "--port",'
        ' os.getenv("PORT", "8000")], check=True)\n'
    ),
    "required.py": (
        "import os, subprocess\n"
        'subprocess.run(["vllm", "serve", os.environ["MODEL"], "--port", "8000"], check=True)\n'
    ),
    "popen.py": (
        "#!/usr/bin/env python3\n"
        "import subprocess, sys\n"
        'proc = subprocess.Popen(["vllm", "serve", sys.argv[1], "--port", "7000"])\n'
        "proc.wait()\n"
    ),
    "no_server.py": 'import subprocess\nsubprocess.run(["echo", "hello"], check=True)\n',
    # a wrapper that passes its own words on (`cmd.extend(sys.argv[1:])`)
    "passes.py": (
        "import subprocess, sys\n"
        'cmd = ["vllm", "serve"]\n'
        "cmd.extend(sys.argv[1:])\n"
        "subprocess.run(cmd, check=True)\n"
    ),
}


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MODEL", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(RECORDER)
    # `python3` and `python` on the stand-in PATH are the interpreter running the tests
    for name in ("python3", "python"):
        (bin_dir / name).symlink_to(sys.executable)
    (tmp_path / "records").mkdir()
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    for path in [bin_dir / "vllm", *(tmp_path / name for name in FILES)]:
        path.chmod(0o755)
    return tmp_path


def run_real(line: str, where: Path) -> list[str]:
    """Run ``line`` with bash (the stand-ins first on PATH); the words each stand-in run got."""
    env = {"PATH": f"{where / 'bin'}:/usr/bin:/bin", "RECORD_DIR": str(where / "records"), "HOME": str(where)}
    subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True, timeout=60, check=False)
    for _ in range(50):  # a background start may write its record after bash returns
        if any((where / "records").iterdir()) or "&" not in line:
            break
        time.sleep(0.1)
    return sorted(p.read_text().strip() for p in (where / "records").iterdir())


def predicted(line: str, cwd: Path) -> list[str]:
    """The words after ``vllm`` of each server the shell layer predicts for ``line`` run in ``cwd``."""
    result = analyze_script(
        ScriptSource("<-c>", line.encode(), None),
        [],
        {"PATH": "/usr/bin:/bin"},
        run_shellcheck=False,
        cwd=str(cwd),
    )
    return sorted(" ".join(str(w.text) for w in s.argv[1:]) for s in result.servers)


LINES = [
    ("python3 serve.py 2", ["serve org/default --tensor-parallel-size 2 --port 8000"]),
    ("export MODEL=/m/q; python3 serve.py 4", ["serve /m/q --tensor-parallel-size 4 --port 8000"]),
    (
        "MODEL=/m/q; python3 serve.py 4",
        ["serve org/default --tensor-parallel-size 4 --port 8000"],
    ),  # not exported
    ("PORT=9 python3 -u serve.py 1", ["serve org/default --tensor-parallel-size 1 --port 9"]),
    ("env PORT=6 python -B -W ignore serve.py 1", ["serve org/default --tensor-parallel-size 1 --port 6"]),
    ("MODEL=/m/r python3 required.py", ["serve /m/r --port 8000"]),
    ("./popen.py /m/p", ["serve /m/p --port 7000"]),  # run by its path: the `#!` line names Python
    ("nohup python3 popen.py /m/p > /dev/null 2>&1 & wait", ["serve /m/p --port 7000"]),
    ("python3 -- serve.py 3", ["serve org/default --tensor-parallel-size 3 --port 8000"]),
    ("python3 passes.py m --max-model-len 4096 --port 1", ["serve m --max-model-len 4096 --port 1"]),
    ("python3 passes.py 'a b' c", ["serve a b c"]),  # one word each, as "$@" gives them
]


@pytest.mark.parametrize(("line", "servers"), LINES, ids=[line for line, _s in LINES])
def test_the_servers_a_python_program_starts(stand_in: Path, line: str, servers: list[str]) -> None:
    assert run_real(line, stand_in) == servers  # what bash and Python do
    assert predicted(line, stand_in) == servers  # what argtrace reads, running nothing


@pytest.mark.parametrize(
    "line",
    [
        "python3 no_server.py",  # its calls start no server: not read into
        "python3 missing.py",
        'python3 -c "import serve"',  # -c and -m run no file
        "python3 -m serve 2",
    ],
)
def test_what_is_not_read_as_a_program(stand_in: Path, line: str) -> None:
    assert predicted(line, stand_in) == []


def test_an_unset_variable_the_program_requires_is_unknown_not_empty(stand_in: Path) -> None:
    result = analyze_script(
        ScriptSource("<-c>", b"python3 required.py", None), [], {}, run_shellcheck=False, cwd=str(stand_in)
    )
    (server,) = result.servers
    assert [w.text for w in server.argv] == ["vllm", "serve", None, "--port", "8000"]


def test_a_value_the_program_computes_stays_its_python_value(stand_in: Path) -> None:
    (stand_in / "computed.py").write_text(
        "import os, subprocess\n"
        'port = int(os.environ.get("PORT", "30000")) + 1\n'
        'subprocess.run(["vllm", "serve", "m", "--port", str(port)])\n'
    )
    result = analyze_script(
        ScriptSource("<-c>", b"python3 computed.py", None), [], {}, run_shellcheck=False, cwd=str(stand_in)
    )
    (server,) = result.servers
    assert [w.text for w in server.argv] == ["vllm", "serve", "m", "--port", None]
    (tp094,) = [f for f in result.findings if f.code == "TP094"]
    assert tp094.at == "computed.py:2"
    assert tp094.message.startswith(
        "`int(os.environ.get('PORT', '30000')) + 1` in a Python launch is not known"
    )


@pytest.mark.parametrize(
    ("text", "expansion"),
    [
        ("os.environ['MODEL']", "MODEL?"),
        ("environ['MODEL']", "MODEL?"),
        ("os.getenv('PORT')", "PORT"),
        ("os.getenv('PORT', '8000')", "PORT-8000"),
        ("os.environ.get('PORT', 8000)", "PORT-8000"),
        ("os.environ.get('MODEL', 'org/m-1.5')", "MODEL-org/m-1.5"),
        ("sys.argv[1]", "1"),
        ("sys.argv[0]", "0"),
        # not written as a shell expansion (kept as the program's own unknown value)
        ("os.getenv('PORT', 'a b')", None),  # a default bash would split or expand
        ("os.getenv('PORT', '$X')", None),
        ("os.getenv('PORT', default='1')", None),
        ("os.getenv(name)", None),
        ("os.environ['my-var']", None),  # no shell name
        ("sys.argv[-1]", None),
        ("sys.argv[12]", None),
        ("sys.argv[1:]", "@"),
        ("*sys.argv[1:]", "@"),
        ("sys.argv[2:]", None),
        ("int(os.getenv('TP', '1'))", None),
    ],
)
def test_the_shell_expansion_of_a_python_read(text: str, expansion: str | None) -> None:
    assert shell_expansion(text) == expansion


def test_a_program_read_alone_keeps_its_reads_unknown() -> None:
    """``argtrace check serve.py``: no shell gives it an environment, its reads stay ``${PY_...}`` (TP094)."""
    alone = read_python_launch("serve.py", FILES["serve.py"].encode())
    under_shell = read_python_launch("serve.py", FILES["serve.py"].encode(), shell_reads=True)
    assert sorted(alone.unknown) == ["PY_os_environ_get_MODEL", "PY_os_getenv_PORT", "PY_sys_argv_1"]
    assert under_shell.unknown == {}
    assert under_shell.script.decode().strip() == (
        'vllm serve "${MODEL-org/default}" --tensor-parallel-size "${1}" --port "${PORT-8000}"'
    )
    popen = read_python_launch("popen.py", FILES["popen.py"].encode(), shell_reads=True)
    assert not popen.script.decode().rstrip().endswith("&")  # the program holds the Popen, not the shell


def test_sys_executable_is_the_interpreter_the_script_names(stand_in: Path) -> None:
    (stand_in / "module.py").write_text(
        "import subprocess, sys\n"
        'subprocess.run([sys.executable, "-m", "vllm.entrypoints.openai.api_server", *sys.argv[1:]])\n'
    )
    result = analyze_script(
        ScriptSource("<-c>", b"/opt/venv/bin/python -u module.py --model m", None),
        [],
        {},
        run_shellcheck=False,
        cwd=str(stand_in),
    )
    (server,) = result.servers
    assert [w.text for w in server.argv] == [
        "/opt/venv/bin/python",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "m",
    ]


def test_a_program_that_changes_its_environment_keeps_its_reads_unknown(stand_in: Path) -> None:
    """``load_dotenv()`` sets what a .env file names: the script's environment is not the program's."""
    (stand_in / "dotenv_serve.py").write_text(
        "import os, subprocess\nfrom dotenv import load_dotenv\nload_dotenv()\n"
        'subprocess.run(["vllm", "serve", os.getenv("CHAT_MODEL"), "--port", os.getenv("PORT", "8000")])\n'
    )
    result = analyze_script(
        ScriptSource("<-c>", b"export PORT=9; python3 dotenv_serve.py", None),
        [],
        {},
        run_shellcheck=False,
        cwd=str(stand_in),
    )
    (server,) = result.servers
    assert [w.text for w in server.argv] == ["vllm", "serve", None, "--port", None]


@pytest.mark.parametrize(
    ("code", "changes"),
    [
        ("from dotenv import load_dotenv\nload_dotenv()", True),
        ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'", True),
        ("import os\nos.environ.update({'A': '1'})", True),
        ("import os\nos.environ.setdefault('A', '1')", True),
        ("import os\ndel os.environ['A']", True),
        ("import os\nos.putenv('A', '1')", True),
        ("import os\nenv = os.environ.copy()\nenv['A'] = '1'", False),  # a copy for the child
        ("import os\nx = os.environ.get('A')", False),
    ],
)
def test_what_changes_a_programs_environment(code: str, changes: bool) -> None:
    import ast

    from argtrace.layers.transport.python_launch import changes_environment

    assert changes_environment(ast.parse(code)) is changes


def test_a_child_given_an_argument_not_known_here_is_still_read(stand_in: Path) -> None:
    """`python3 serve.py "$(nproc)"`, `bash run.sh "$(nproc)"`: the child's `$1` (its `sys.argv[1]`) is not
    known, its other words are; before, the child was not read at all (SH019, no server)."""
    (stand_in / "run.sh").write_text('vllm serve m --tensor-parallel-size "$1" --port 8000\n')
    reason = "the arguments `{}` is run with (<-c>:1:1) are not all known statically"
    for line, program, argv in [
        ('python3 serve.py "$(nproc)"', "serve.py", ["serve", "org/default", "--tensor-parallel-size", None]),
        ('bash run.sh "$(nproc)"', "run.sh", ["serve", "m", "--tensor-parallel-size", None]),
    ]:
        result = analyze_script(
            ScriptSource("<-c>", line.encode(), None), [], {}, run_shellcheck=False, cwd=str(stand_in)
        )
        (server,) = result.servers
        assert [w.text for w in server.argv[1:5]] == argv
        said = [f.message for f in result.findings if f.code == "SH018"]
        assert said[0].endswith(reason.format(program)), said


OFFLINE = (
    "from vllm import LLM\n"
    'llm = LLM(model="Qwen/Qwen3-8B", tensor_parallel_size=2)\n'
    'print(llm.generate(["hi"]))\n'
)


def test_an_engine_in_the_program_runs_in_the_interpreter_the_script_names(tmp_path: Path) -> None:
    """``LLM(...)`` runs vLLM in the program's own process: the release is the one installed for the
    interpreter the script runs the program with (here a real virtual environment holding vllm 0.30.0's
    metadata). It was written as ``vllm serve``, looked up on PATH: PR007 said `vllm` is not found, and the
    installed release was not read."""
    import venv

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    (site,) = env_dir.glob("lib/python*/site-packages")
    (site / "vllm-0.30.0.dist-info").mkdir()
    (site / "vllm-0.30.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: vllm\nVersion: 0.30.0\n"
    )
    (tmp_path / "offline.py").write_text(OFFLINE)
    python = str(env_dir / "bin" / "python")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "argtrace",
            "check",
            "--format",
            "json",
            "--no-resolve",
            "-c",
            f"{python} offline.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ARGTRACE_CACHE_DIR": str(tmp_path / "cache"), "ARGTRACE_WARM": "0"},
    )
    report = json.loads(done.stdout)
    assert (report["framework"]["version"], report["framework"]["source"]) == ("0.30.0", "installed")
    (server,) = report["servers"]
    assert server["argv"] == [
        python,
        "-m",
        "vllm.entrypoints.cli.main",
        "serve",
        "Qwen/Qwen3-8B",
        "--tensor-parallel-size",
        "2",
    ]
    assert [f["code"] for f in report["findings"] if f["code"].startswith("PR")] == []
