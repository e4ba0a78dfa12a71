"""``argtrace --host NODE check``: the interpreter the script names, as the node resolves it.

This module owns the ``--host`` hop of the report (who and where the node's session is) and TP015: the
program is not on the node's non-interactive ``PATH``, or the interpreter found there does not have the
framework installed (a conda/venv environment activated in ``~/.bashrc`` is not active over ssh).
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.layers.transport.context import TransportResult
from argtrace.model import Evidence, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _check_node_interpreters(servers: Sequence[ServerCommand], result: TransportResult) -> None:
    """``argtrace --host NODE check``: does the interpreter the script names, found on the node's
    non-interactive PATH, import the framework at all? (TP015)"""
    from argtrace.remote.host import HostError, current_host

    host = current_host()
    if not host.is_remote:
        return
    from argtrace.frameworks import site_packages
    from argtrace.rules import transport as R

    files = site_packages.files_of(host)
    try:
        info = host.info()
    except HostError:
        return
    result.hops.append(
        {
            "at": None,
            "via": "--host",
            "host": host.label,
            "hostname": info.hostname,
            "user": info.user,
            "cwd": info.cwd,
            "login_shell": info.login_shell,
            "python3": info.executable,
            "path": info.env.get("PATH"),
            "banner": list(getattr(host, "noise", []))[:20],
        }
    )
    for server in servers:
        first = server.argv[0].text if server.argv else None
        program = server.interpreter or first
        if not program or program in ("env", "nohup", "exec", "sudo", "uv", "conda", "numactl", "taskset"):
            continue
        env = {k: v.value for k, v in server.env.items() if v.value is not None}
        path_env = env.get("PATH")
        try:
            # Looked up and read from the node's files only: neither `sh` nor the interpreter is run
            # there, since both would be found on a PATH the script chose.
            if "/" in program:
                found: str | None = program if host.stat(program).exists else None
            elif path_env is not None:
                found = site_packages.which_on(files, program, path_env, info.cwd or "/")
            else:
                found = host.which(program).get(program)
            hop: dict[str, Any] = {
                "at": server.at,
                "via": f"--host {host.label}",
                "program": program,
                "resolved": found,
            }
            result.hops.append(hop)
            if found is None:
                result.findings.append(
                    R.TP015.finding(
                        f"`{program}` is not found on {host.label} by a non-interactive shell (PATH "
                        f"{path_env or host.environ().get('PATH', '')}): the server command fails with "
                        "`command not found`",
                        at=server.at,
                    )
                )
                continue
            if server.interpreter is None:
                continue  # a console script (`vllm`, `sglang`): its own shebang names the interpreter
            words = [w.text or "" for w in server.argv]
            start = words.index(server.interpreter) + 1 if server.interpreter in words else len(words)
            lookup = site_packages.installed_version(
                found,
                server.framework,
                env,
                server.cwd or info.cwd,
                flags=site_packages.interpreter_flags(words[start : server.server_args_start]),
                host=host,
            )
            hop["framework_version"] = lookup.version
            if lookup.version is None and lookup.reason:
                hop["framework_version_reason"] = lookup.reason
            if lookup.version is None and lookup.layout is not None and lookup.layout.reason is None:
                result.findings.append(
                    R.TP015.finding(
                        f"on {host.label}, `{program}` resolves to {found} for a non-interactive shell, "
                        f"and that interpreter has no {server.framework} installed: `python -m` fails with "
                        "`No module named`. A conda/venv environment activated in ~/.bashrc is not "
                        "active here.",
                        at=server.at,
                        evidence=[Evidence("transport", server.at, f"{program} -> {found}")],
                    )
                )
        except HostError:
            continue
