"""``bash -c`` and ``sudo``: two programs that change what the command they run receives.

This module owns TP004 (``bash -c WORD MORE...`` runs only WORD; MORE become ``$0 $1 ...``) and TP006
(``sudo`` resets the environment: exported variables do not reach the server, ``PATH`` becomes
``secure_path``). Both apply on this machine, on the node and inside a container's ``sh -c``.
"""

from __future__ import annotations

import re

from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.words import _basename, _show, _show_argv, _starts_server
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
    from argtrace.rules import transport as R

    keeps = any(
        w is not None
        and (
            w in ("-E", "-i")
            or w.startswith("--preserve-env")
            or (w.startswith("-") and not w.startswith("--") and "E" in w)
        )
        for w in argv[1:]
    )
    if keeps or not _starts_server(argv):
        return
    result.findings.append(
        R.TP006.finding(
            "sudo starts the server with a reset environment (env_reset): variables the script exported "
            "or set "
            "before it (CUDA_VISIBLE_DEVICES, SGLANG_*, VLLM_*, HF_TOKEN, a venv's PATH) do not reach "
            "it, and PATH "
            "becomes sudo's secure_path",
            at=at,
            evidence=[Evidence("transport", at, _show_argv(argv))],
        )
    )
