"""The server's environment after the wrappers written before it (``env``, ``sudo``, ``systemd-run``,
``hf jobs run``) and their ``NAME=value`` words, in the order written. Each wrapper's rules are
``wrapenv.py``'s, loaded for the first command a wrapper runs: a server started without one (code35) needs
none of them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from argtrace.frameworks.detect import Detection
    from argtrace.layers.shell.wrapenv import EnvMap


def wrapper_env(
    argv: Sequence[Any], det: Detection, env: EnvMap, cwd: str | None, passwd_file: Callable[[], bytes | None]
) -> EnvMap:
    """The server's environment after the ``env`` and ``sudo`` wrappers in ``argv`` (``ExpWord``s) and their
    ``NAME=value`` words, applied in the order written, starting from ``env`` (what bash hands on)."""
    from argtrace.layers.shell.core import to_str

    texts = [w.text or "" for w in argv]
    events: list[tuple[int, int, str]] = [
        (p, 0, n) for p, n in zip(det.wrapper_at, det.wrappers, strict=False)
    ]  # torchrun: no index
    events += [(idx, 1, "=") for idx, _n, _v in det.env_assignments]
    assigned = {idx: (n, v) for idx, n, v in det.env_assignments}
    env = dict(env)
    for p, _kind, name in sorted(events):
        if name == "=":
            n, v = assigned[p]
            w = argv[p]
            env[n] = (
                v,
                w.at,
                to_str(w.expansion) if w.expansion != "literal" else to_str(w.text or ""),
                None,
            )
        elif name == "env":
            from argtrace.layers.shell.wrapenv import env_ops

            env_ops(texts, p + 1, env, argv[p].at)
        elif name == "systemd-run":
            from argtrace.layers.shell.wrapenv import systemd_run_ops

            systemd_run_ops(texts, p + 1, env, argv[p].at)
        elif name == "hf jobs run":
            from argtrace.layers.shell.wrapenv import hf_jobs_ops

            hf_jobs_ops(texts, p + 3, env)
        elif name == "sudo":
            from argtrace.layers.shell.hostfs import isfile, realpath
            from argtrace.layers.shell.wrapenv import _ASSIGN, parse_sudo, passwd_entry, sudo_environment

            call = parse_sudo(texts, p + 1)
            k = call.command
            while k < det.command_index and _ASSIGN.match(texts[k]):
                k += 1
            command = [w.text for w in argv[k:]]
            env = sudo_environment(
                env,
                call,
                command,
                argv[p].at,
                passwd=passwd_entry(passwd_file),
                is_file=isfile,
                cwd=cwd,
                realpath=realpath,
            )
    return env
