"""systemd itself as the oracle for ``layers/transport/systemd_syntax.py`` (differential tests).

Three parts of the real systemd 252 answer what argtrace predicts, without a running manager and without
running anything a unit names:

* ``SYSTEMD_LOG_LEVEL=debug systemd-analyze verify UNIT`` loads the unit as the manager would and prints it:
  each ``ExecStart=`` as ``Command Line: ...`` (after quoting, escapes, continuations, prefixes and ``%``
  specifiers; before variables), each ``Environment=`` assignment, and "Unit configuration has fatal
  error" for a unit it refuses (``/bin/true`` as the command: it is never started);
* libsystemd-shared-252's own ``replace_env_argv`` (the exec-time substitution of ``$NAME`` and
  ``${NAME}``, ``src/basic/env-util.c``), called through ctypes on word lists;
* its ``load_env_file`` (``EnvironmentFile=``'s reader, ``src/basic/env-file.c``) on files we write.

Skipped where systemd 252 is absent (``scripts/ci_apt`` installs Debian's systemd package); another release
is skipped too: argtrace models 252's rules (255's ``replace_env_argv`` has another signature).
"""

from __future__ import annotations

import ctypes
import glob
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.layers.transport import systemd_syntax as S
from tests.conftest import REPO


def _systemd_version() -> int | None:
    if shutil.which("systemd-analyze") is None:
        return None
    out = subprocess.run(["systemd-analyze", "--version"], capture_output=True, text=True).stdout
    try:
        return int(out.split()[1])
    except (IndexError, ValueError):
        return None


VERSION = _systemd_version()
LIBRARY = next(iter(sorted(glob.glob("/usr/lib/*/systemd/libsystemd-shared-252*.so"))), None)
needs_252 = pytest.mark.skipif(VERSION != 252, reason=f"systemd 252 is the oracle (found {VERSION})")
needs_library = pytest.mark.skipif(LIBRARY is None, reason="libsystemd-shared-252.so not installed")


def verify(
    tmp_path: Path, service: str, name: str = "vllm.service"
) -> tuple[list[list[str]], list[str], bool]:
    """The command lines and Environment= assignments systemd loads from a unit, and whether it refuses it."""
    unit = tmp_path / name
    unit.write_text("[Service]\n" + service)
    env = {**os.environ, "SYSTEMD_LOG_LEVEL": "debug"}
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )
    # quote_command_line() escapes `$` inside double quotes too, which shlex leaves alone
    commands = [
        [w.replace("\\$", "$") for w in shlex.split(line.split("Command Line:", 1)[1])]
        for line in done.stdout.splitlines()
        if "Command Line:" in line
    ]
    environment = [
        line.split("Environment:", 1)[1].strip()
        for line in done.stdout.splitlines()
        if "\tEnvironment: " in line
    ]
    return commands, environment, "Unit configuration has fatal error" in done.stderr


def predicted(service: str, name: str = "vllm.service") -> tuple[list[list[str]], list[str], bool]:
    """The same three read by argtrace's systemd_syntax."""
    assignments, _ = S.read_unit("[Service]\n" + service)
    commands: list[list[str]] = []
    environment: list[str] = []
    try:
        for a in assignments:
            if a.key == "ExecStart" and not a.value:
                commands.clear()
            elif a.key == "ExecStart":
                commands.extend(list(c.argv) for c in S.parse_exec(a.value, S.UnitName(name), None)[0])
            elif a.key == "Environment":
                words, _ = S.split_words(a.value)
                environment.extend(w for w in words if "=" in w and S.valid_name(w.partition("=")[0]))
    except S.SyntaxProblem:
        return [], environment, True
    return commands, environment, False


UNITS = {
    "continuation, a comment inside it": "ExecStart=/bin/true serve m \\\n  --port 1 \\\n# note\n  --tp 2\n",
    "an empty line ends a continuation": "ExecStart=/bin/true serve m \\\n\n  --port 1\n",
    "quotes mid-word and escapes": 'ExecStart=/bin/true --x="a b" --y=a\\sb --z="q"r\\x41 --j \'{"a": 1}\'\n',
    "escaped quotes in double quotes": 'ExecStart=/bin/true --j "{\\"b\\": 2}" --k a\\ b\n',
    "variables are not touched at load": "ExecStart=/bin/true ${MODEL} $PORT --p=$PORT $$HOME\n",
    "a quoted $VAR loses its quotes at load": 'ExecStart=/bin/true "$PORT" "${A} b"\n',
    "prefixes and @": "ExecStart=-@+/bin/true vllm-renamed serve m\n",
    "specifiers of the unit name": "ExecStart=/bin/true %n %N %p %i %% 100%%\n",
    "fixed-directory specifiers": "ExecStart=/bin/true %t %S %C %L %E %T %V\n",
    "an unknown specifier is fatal": "ExecStart=/bin/true --gpu-memory-utilization 90%2\n",
    "a line ending inside quotes is fatal": 'ExecStart=/bin/true --chat-template "abc\n  --port 1\n',
    "escaped semicolon": "ExecStart=/bin/true serve m \\;\n",
    "Environment= quoting": 'Environment=A=1 B="x y" "C=p q" D=it\\x27s E\nExecStart=/bin/true\n',
    "Environment= keeps $ literally": "Environment=F=$A G=${A} 'H=a b'\nExecStart=/bin/true\n",
    "an empty ExecStart= resets": "Type=oneshot\nExecStart=/bin/true a\nExecStart=\nExecStart=/bin/true b\n",
}


@needs_252
@pytest.mark.parametrize("service", list(UNITS.values()), ids=list(UNITS))
def test_unit_reading_matches_systemd(tmp_path: Path, service: str) -> None:
    assert predicted(service) == verify(tmp_path, service)


@needs_252
def test_instance_unit_specifiers_match_systemd(tmp_path: Path) -> None:
    service = "ExecStart=/bin/true %n %N %p %P %i %I %j %J %f\n"
    name = "sglang-node@rank-1.service"
    assert predicted(service, name) == verify(tmp_path, service, name)


@needs_252
def test_specifier_table_is_the_installed_systemds() -> None:
    """data/systemd_specifiers.json is what scripts/gen_systemd_specifiers.py measures here."""
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_systemd_specifiers.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stdout) == (0, "up to date\n")


@needs_252
def test_a_bare_command_is_not_looked_up_in_the_units_path(tmp_path: Path) -> None:
    """TP068's premise: a program only in the unit's own PATH is not found (systemd's fixed search path)."""
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "argtrace-probe-prog").write_text("#!/bin/sh\n")
    (venv / "argtrace-probe-prog").chmod(0o755)
    unit = tmp_path / "probe.service"
    unit.write_text(f"[Service]\nEnvironment=PATH={venv}:/usr/bin\nExecStart=argtrace-probe-prog serve m\n")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert (
        "probe.service: Command argtrace-probe-prog is not executable: No such file or directory"
        in done.stderr
    )


def _strv(items: list[str]) -> ctypes.Array[ctypes.c_char_p]:
    return (ctypes.c_char_p * (len(items) + 1))(*[s.encode() for s in items], None)


def _read_strv(pointer: ctypes._Pointer[ctypes.c_char_p]) -> list[str]:
    out = []
    i = 0
    while pointer[i] is not None:
        out.append(pointer[i].decode())
        i += 1
    return out


def replace_env_argv(argv: list[str], env: dict[str, str]) -> list[str]:
    assert LIBRARY is not None
    lib = ctypes.CDLL(LIBRARY)
    lib.replace_env_argv.restype = ctypes.POINTER(ctypes.c_char_p)
    lib.replace_env_argv.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return _read_strv(lib.replace_env_argv(_strv(argv), _strv([f"{k}={v}" for k, v in env.items()])))


ARGVS = [
    ["/bin/true", "$A", "${A}", "--p=$B", "--q=${B}", "$UNSET", "${UNSET}", "$$X", "pre${A}post"],
    ["/bin/bash", "-c", "$VENV/bin/vllm serve m --port 8000"],
    ["/bin/true", "$A$B", "'$A'", "$C", "${A:-d}", "${A", "a$", "$", "${}"],
    ["/opt/vllm/bin/vllm", "serve", "${VLLM_MODEL}", "--port", "${VLLM_PORT}", "$VLLM_SERVE_ARGS"],
    ["/bin/true", "$Q", "$S", "${Q}"],
]
ENV = {
    "A": "x y",
    "B": "1",
    "C": "'q r' s",
    "VENV": "/opt/venv",
    "VLLM_MODEL": "Qwen/Qwen2.5-0.5B-Instruct",
    "VLLM_PORT": "8000",
    "VLLM_SERVE_ARGS": "--dtype auto --gpu-memory-utilization 0.90",
    "Q": '"a b" c\\ d',
    "S": "",
}


@needs_252
@needs_library
@pytest.mark.parametrize("argv", ARGVS, ids=[str(i) for i in range(len(ARGVS))])
def test_variable_substitution_matches_replace_env_argv(argv: list[str]) -> None:
    assert S.expand_argv(tuple(argv), ENV).argv == replace_env_argv(argv, ENV)


def test_substitution_findings_exact() -> None:
    expanded = S.expand_argv(tuple(ARGVS[0]), ENV)
    assert expanded.argv == ["/bin/true", "x", "y", "x y", "--p=$B", "--q=1", "", "$X", "prex ypost"]
    assert expanded.vanished == [(6, "$UNSET", "UNSET")]
    assert expanded.empty == [("${UNSET}", "UNSET")]
    assert expanded.literal == [("--p=$B", "B")]
    assert expanded.one_word == [("${A}", "A", "x y"), ("pre${A}post", "A", "x y")]
    swallowed = S.expand_argv(tuple(ARGVS[1]), ENV)
    assert swallowed.argv == ["/bin/bash", "-c"]
    assert swallowed.swallowed == [
        ("$VENV/bin/vllm serve m --port 8000", "VENV/bin/vllm serve m --port 8000")
    ]


def load_env_file(path: Path) -> list[str]:
    assert LIBRARY is not None
    lib = ctypes.CDLL(LIBRARY)
    lib.load_env_file.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)),
    ]
    lib.load_env_file.restype = ctypes.c_int
    out = ctypes.POINTER(ctypes.c_char_p)()
    assert lib.load_env_file(None, str(path).encode(), ctypes.byref(out)) >= 0
    return _read_strv(out)


ENV_FILE = "\n".join(
    [
        "A=1",
        'B="x y"',
        "C='p q'",
        "D=trailing   ",
        "E=a # not a comment",
        "# comment",
        "; comment too",
        "export F=2",
        "G = spaced",
        "H=a\\",
        "b",
        'I="dq \\"in\\" \\$x \\\\ \\n"',
        'J=un\\"q',
        "K=$A",
        "L=",
        "M",
        "  N=lead",
        'O=x"y"z',
        "P='a'b",
        "HF_TOKEN=hf_not_a_real_token_1234",
        "",
    ]
)


@needs_252
@needs_library
def test_environment_file_matches_load_env_file(tmp_path: Path) -> None:
    path = tmp_path / "vllm.env"
    path.write_text(ENV_FILE)
    ours = [f"{k}={v}" for k, v, _line in S.load_env_file(ENV_FILE)]
    assert ours == load_env_file(path)


def test_environment_file_exact() -> None:
    got = {k: v for k, v, _line in S.load_env_file(ENV_FILE)}
    assert got["B"] == "x y"
    assert got["D"] == "trailing"
    assert got["E"] == "a # not a comment"
    assert got["H"] == "ab"
    assert got["I"] == 'dq "in" $x \\ \\n'
    assert got["P"] == "ab"
    assert "export F" in got and not S.valid_name("export F")
    assert "M" not in got


CASES = REPO / "tests" / "data" / "real_cases_carriers3"


@needs_252
@needs_library
@pytest.mark.parametrize("name", sorted(p.name for p in CASES.glob("*.service")))
def test_real_case_units_end_to_end(tmp_path: Path, name: str) -> None:
    """The server argv argtrace reports for each real-case unit is the one systemd builds: the command line
    systemd-analyze loads, substituted by replace_env_argv with the Environment= systemd loaded and the
    EnvironmentFile= read by load_env_file (the copy beside the unit)."""
    from tests.conftest import run_cli

    text = (CASES / name).read_text()
    unit = tmp_path / name
    unit.write_text(text)
    env = {**os.environ, "SYSTEMD_LOG_LEVEL": "debug"}
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )
    lines = done.stdout.splitlines()
    loaded = [shlex.split(x.split("Command Line:", 1)[1]) for x in lines if "Command Line:" in x]
    command = [w.replace("\\$", "$") for w in loaded[0]]
    variables = dict(
        x.split("Environment:", 1)[1].strip().partition("=")[::2] for x in lines if "\tEnvironment: " in x
    )
    variables["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
    if "EnvironmentFile=" in text:
        variables.update(e.partition("=")[::2] for e in load_env_file(CASES / "vllm.env"))
    report = run_cli(["check", "--format", "json", "--no-resolve", name], cwd=CASES).json
    assert report["transport"]["hops"][0]["exec_start"][0]["argv"] == replace_env_argv(command, variables)


TRANSPORT5 = REPO / "tests" / "data" / "transport5"


@needs_252
@needs_library
@pytest.mark.parametrize(
    "name",
    [
        "fail_pgbackrest91.service",
        "ok_pgbackrest92.service",
        "fail_systemd36488.service",
        "fail_openship121.service",
    ],
)
def test_transport5_units_end_to_end(tmp_path: Path, name: str) -> None:
    """The transport5 units whose variables come from `Environment=` alone (their optional EnvironmentFile=
    is the node's): the argv argtrace reports is replace_env_argv's over what systemd-analyze loaded, the
    `$FOO` of systemd#36488 losing its quote and backslash and `${ARGS}` staying one word included; and
    the variables systemd keeps are the ones the report's hop names (openship#121's cut value)."""
    from tests.conftest import run_cli

    unit = tmp_path / name
    unit.write_text((TRANSPORT5 / name).read_text())
    env = {**os.environ, "SYSTEMD_LOG_LEVEL": "debug"}
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )
    lines = done.stdout.splitlines()
    loaded = [shlex.split(x.split("Command Line:", 1)[1]) for x in lines if "Command Line:" in x]
    command = [w.replace("\\$", "$") for w in loaded[0]]
    variables = dict(
        x.split("Environment:", 1)[1].strip().partition("=")[::2] for x in lines if "\tEnvironment: " in x
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", name], cwd=TRANSPORT5).json
    hop = report["transport"]["hops"][0]
    assert hop["exec_start"][0]["argv"] == replace_env_argv(command, {**variables, "PATH": S_PATH})
    assert sorted(hop["environment"]) == sorted({*variables, "PATH"})


S_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
