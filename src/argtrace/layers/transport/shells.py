"""``bash -c`` and ``sudo``: two programs that change what the command they run receives.

This module owns TP004 (``bash -c WORD MORE...`` runs only WORD; MORE become ``$0 $1 ...``) and TP006
(``sudo`` resets the environment: exported variables do not reach the server, ``PATH`` becomes
``secure_path``). Both apply on this machine, on the node and inside a container's ``sh -c``.
"""

from __future__ import annotations

import re

from argtrace.layers.transport.command_names import _basename
from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.words import _show, _show_argv, _starts_server
from argtrace.model import Evidence


def _shell_c(at: str, argv: list[str | None], result: TransportResult) -> None:
    """``bash -c WORD MORE...``: only WORD is the command; MORE become ``$0 $1 ...`` (TP004)."""
    from argtrace.rules import transport as R

    i = 1
    while i < len(argv) and argv[i] is not None and (argv[i] or "").startswith("-") and argv[i] != "-c":
        opt = argv[i] or ""
        if opt.startswith("-") and "c" in opt[1:] and not opt.startswith("--"):
            break
        i += 1
    if i >= len(argv) or argv[i] is None:
        return
    opt = argv[i] or ""
    if not (opt == "-c" or (opt.startswith("-") and not opt.startswith("--") and "c" in opt[1:])):
        return
    if i + 2 >= len(argv):
        return
    command = argv[i + 1]
    rest = argv[i + 2 :]
    if command is None or re.search(r"\s", command):
        return
    lost = [w for w in rest if w is not None]
    if not any(w.startswith("-") for w in lost) and len(lost) < 2:
        return
    result.findings.append(
        R.TP004.finding(
            f"`{_basename(argv[0])} {opt} {_show(command)}` runs only {_show(command)}: the following "
            f"{len(rest)} word(s) ({_show_argv(rest[:4])}{' ...' if len(rest) > 4 else ''}) become $0, "
            f"$1, ... of that "
            "command string and are never used",
            at=at,
            evidence=[Evidence("transport", at, _show_argv(argv))],
        )
    )


def _sudo(at: str, argv: list[str | None], result: TransportResult) -> None:
    """TP006: what sudo's env_reset and secure_path do to the server, on Debian's default sudoers (the
    machine's may differ, so the finding's basis is ``assumed``; the environment itself is predicted by
    ``layers/shell/wrapenv.py``)."""
    from argtrace.layers.shell.wrapenv import parse_sudo, sudo_defaults
    from argtrace.rules import transport as R

    if not _starts_server(argv):
        return
    words = [w or "" for w in argv]
    call = parse_sudo(words, 1)
    d = sudo_defaults()
    k = call.command
    while k < len(words) and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", words[k]):
        k += 1
    basis = f"{d.package}'s defaults with the /etc/sudoers of {d.system}; the machine's sudoers may differ"
    evidence = [Evidence("transport", at, _show_argv(argv))]
    if call.login or not (call.keep_all or call.preserve):
        result.findings.append(
            R.TP006.finding(
                "sudo starts the server with a reset environment (env_reset): variables the script "
                "exported or set before it (CUDA_VISIBLE_DEVICES, SGLANG_*, VLLM_*, HF_TOKEN, a venv's PATH) "
                f"do not reach it, and PATH becomes sudo's secure_path ({d.secure_path}) ({basis})",
                at=at,
                evidence=evidence,
            )
        )
        return
    command = words[k] if k < len(words) else ""
    if "/" in command or any(w.startswith("PATH=") for w in words[1:]) or not d.secure_path:
        return
    kept = "-E" if call.keep_all else f"--preserve-env={','.join(call.preserve)}"
    result.findings.append(
        R.TP006.finding(
            f"sudo {kept} keeps the caller's variables but not PATH: `{command}` is looked up on sudo's "
            f"secure_path ({d.secure_path}), so a venv's or conda's `{command}` first on the script's PATH "
            "is not the one that runs"
            + (" (PYTHONPATH and LD_* are removed too: env_delete)" if call.keep_all else "")
            + f" ({basis})",
            at=at,
            evidence=evidence,
            severity="info",
            fix=f"Name the interpreter by its path: `sudo {kept} /opt/venv/bin/python -m ...`.",
        )
    )
