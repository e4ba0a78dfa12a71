"""``argtrace check Procfile``: the processes honcho (or foreman) starts from a Procfile.

A Procfile is not a shell script: each line ``NAME: COMMAND`` names a process type, and ``honcho start``
runs every COMMAND with ``/bin/sh -c`` in an environment of its own. Read as bash, ``web: vllm serve ...``
is a command named ``web:`` (SH040 "not followed") and the server is never read. This module owns
reading a Procfile as honcho 2.0.0 does (``honcho/environ.py``, ``honcho/command.py``, ``honcho/process.py``):

- a process line matches ``^([A-Za-z0-9_-]+):\\s*(.+)$`` (``PROCFILE_LINE``); every other line (comments,
  blank lines, anything else) is ignored; a name given twice makes honcho refuse the file
  (``AssertionError: process names must be unique within a Procfile``: TP101);
- each process gets honcho's own environment (``os.environ``), the ``.env`` file of the app root
  (``environ.parse``: ``shlex`` in POSIX mode, ``NAME=value`` lines) over it, ``HONCHO_PROCESS_NAME=name.1``
  and ``PORT``: the base port (``--port``, else ``PORT`` of ``.env``, else of the environment, else 5000)
  plus 100 for each process type before it (``expand_processes``);
- the command runs with ``shell=True`` (``/bin/sh -c COMMAND``), so it is read here as a one-line script.

The app root is taken to be the Procfile's directory (honcho's default is the current directory, where a
Procfile is normally found). ``honcho start NAME`` (one process) and ``-c name=N`` (several copies, ports
``PORT+1``...) are not modelled: every process type is read once.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping

from argtrace.layers.transport.context import TransportResult

# honcho 2.0.0 environ.py: PROCFILE_LINE
_PROCFILE_LINE = re.compile(r"^([A-Za-z0-9_-]+):\s*(.+)$")
_NAMES = re.compile(r"^Procfile(\.[\w.-]+)?$")
_BASE_PORT = 5000  # honcho/command.py DEFAULTS["port"]; foreman's default too


def is_procfile(label: str, data: bytes) -> bool:
    """A Procfile by its name (``Procfile``, ``Procfile.dev``...) whose lines honcho reads as processes;
    a script (``#!``) named so stays a script."""
    if not _NAMES.match(posixpath.basename(label)) or data.startswith(b"#!") or b"\x00" in data[:8192]:
        return False
    text = data[:65536].decode("utf-8", "replace")
    return any(_PROCFILE_LINE.match(line) for line in text.splitlines())


def parse_env(content: str) -> dict[str, str]:
    """honcho's ``.env`` reading (``environ.parse``): each line through ``shlex`` (POSIX), ``NAME = value``
    tokens joined; ``\\n``/``\\t`` written as two characters become a newline and a tab."""
    values: dict[str, str] = {}
    for line in content.splitlines():
        try:
            tokens = list(shlex.shlex(line, posix=True))
        except ValueError:
            # honcho itself stops with this exception ("No closing quotation"); such a line sets nothing
            continue
        if len(tokens) < 3:
            continue
        name, op = tokens[:2]
        value = "".join(tokens[2:])
        if op != "=" or not re.match(r"[A-Za-z_][A-Za-z_0-9]*", name):
            continue
        values[name] = value.replace(r"\n", "\n").replace(r"\t", "\t")
    return values


def processes(text: str) -> list[tuple[str, str, int, int]]:
    """The process lines in file order: (name, command, line number, column of the command, 0-based)."""
    out: list[tuple[str, str, int, int]] = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _PROCFILE_LINE.match(line)
        if m:
            out.append((m.group(1), m.group(2), number, m.start(2)))
    return out


def analyze_procfile(
    label: str, data: bytes, *, env: Mapping[str, str], follow: object | None = None
) -> TransportResult:
    """Every process of the Procfile read as honcho starts it: its command as a ``/bin/sh -c`` script with
    the environment honcho gives it."""
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.layers.transport.envfiles import read_env_file
    from argtrace.rules.launchers import TP101

    result = TransportResult()
    text = data.decode("utf-8", "replace")
    found = processes(text)
    seen: dict[str, int] = {}
    for name, _command, number, _col in found:
        if name in seen:
            result.findings.append(
                TP101.finding(
                    f"process `{name}` is named twice (lines {seen[name]} and {number}): honcho refuses the "
                    "Procfile (`process names must be unique within a Procfile`), so no process of it starts",
                    at=f"{label}:{number}:1",
                )
            )
            return result
        seen[name] = number
    dotenv_path = posixpath.join(posixpath.dirname(label) or ".", ".env")
    raw, _problem, _missing = read_env_file(dotenv_path)
    dotenv = parse_env(raw.decode("utf-8", "replace")) if raw is not None else {}
    result.keep_secrets(dotenv)
    port_text = dotenv.get("PORT") or env.get("PORT") or str(_BASE_PORT)
    try:
        port: int | None = int(port_text)
    except ValueError:
        port = None  # honcho stops: "invalid value for port"; the processes are still read, without PORT
    for name, command, number, col in found:
        process_env = {**env, **dotenv, "HONCHO_PROCESS_NAME": f"{name}.1"}
        if port is not None:
            process_env["PORT"] = str(port)
            port += 100
        # blank lines and columns before the command keep the Procfile's line and column numbers
        script = "\n" * (number - 1) + " " * col + command + "\n"
        source = ScriptSource(label=label, data=script.encode("utf-8", "surrogateescape"), path=None)
        shell = analyze_script(source, [], process_env, arg0="sh", run_shellcheck=False, cwd=None)
        result.commands.extend(shell.commands)
        result.findings.extend(f for f in shell.findings if f.code != "SH019")
        carried = []
        if follow is not None:
            transport = follow(source, shell, args=[], env=process_env)  # type: ignore[operator]
            result.findings.extend(transport.findings)
            result.hops.extend(transport.hops)
            carried = transport.servers
        for server in [*shell.servers, *carried]:
            result.servers.append(server)
        # the hop as the text output shows it: honcho runs the line with /bin/sh -c
        result.hops.append(
            {"at": f"{label}:{number}:{col + 1}", "via": f"honcho ({name})", "argv": ["sh", "-c", command]}
        )
    return result
