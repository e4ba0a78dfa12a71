"""One observed process and how its argv is recognised: the record ``ps``, ``check --pid`` and ``run`` fill.

This module owns the ``ObservedProcess`` record, the recognition of SGLang/vLLM worker titles
(``setproctitle`` names such as ``sglang::scheduler_TP0``) and of a server's argv as the kernel has it. It
sits below both ways of reading processes, ``layers/observed.py`` (local, psutil) and
``layers/observed_remote.py`` (a node's ``/proc`` over ``--host``), so neither imports the other.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

# Worker process titles: (framework, role).
_TITLE = re.compile(r"^(?P<prefix>sglang|[A-Za-z0-9_]+)::(?P<role>[A-Za-z_]+?)(?:_(?P<rank>\w+))?\s*$")


@dataclass
class ObservedProcess:
    """One process as observed: argv, start environment, interpreter, sockets, framework role."""

    pid: int
    ppid: int | None
    started: float | None
    argv: tuple[str, ...]
    exe: str | None = None
    cwd: str | None = None
    env: dict[str, str] | None = None
    env_error: str | None = None
    username: str | None = None
    title: str | None = None  # the setproctitle name, when the process renamed itself
    framework: str | None = None
    entrypoint: str | None = None
    server_args_start: int | None = None
    role: str = "other"  # "server", a worker role ("scheduler", "EngineCore"...), or "other"
    listening: tuple[str, ...] = ()
    framework_version: str | None = None
    python_version: str | None = None
    children: list[ObservedProcess] = field(default_factory=list)

    @property
    def server_args(self) -> tuple[str, ...]:
        return self.argv[self.server_args_start :] if self.server_args_start is not None else ()

    def started_iso(self) -> str | None:
        if self.started is None:
            return None
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))


def classify_title(argv: Sequence[str]) -> tuple[str | None, str | None]:
    """(framework, worker role) for a process renamed by setproctitle, else (None, None)."""
    if not argv:
        return None, None
    text = " ".join(a for a in argv if a).strip()
    if " " in text and "::" not in text.split(" ", 1)[0]:
        return None, None
    m = _TITLE.match(text.split(" ", 1)[0])
    if not m:
        return None, None
    prefix = m["prefix"]
    if prefix == "sglang":
        return "sglang", m["role"]
    if prefix.upper() == "VLLM" or m["role"] in ("EngineCore", "Worker", "APIServer", "DPCoordinator"):
        return "vllm", m["role"]
    return None, None


def detect_observed(argv: Sequence[str]) -> tuple[str, str, int] | None:
    """(framework, entrypoint, index of the first server argument) for an argv as the kernel has it.

    Besides what a script writes (:func:`argtrace.frameworks.detect.detect_server`), a console script runs as
    ``python /venv/bin/sglang serve ...`` (the ``#!`` line's interpreter first) and torchrun as
    ``python /venv/bin/torchrun ... -m sglang.launch_server ARGS``.
    """
    from argtrace.frameworks.detect import detect_server

    found = detect_server(list(argv))
    if found is not None:
        return found.framework, found.entrypoint, found.server_args_start
    if len(argv) < 2 or "python" not in os.path.basename(argv[0]):
        return None
    script = argv[1]
    base = os.path.basename(script)
    if base in ("sglang", "vllm") and list(argv[2:3]) == ["serve"]:
        return base, f"{base} serve", 3
    if base == "torchrun":
        for k in range(2, len(argv) - 1):
            if argv[k] in ("-m", "--module"):
                module = argv[k + 1]
                if module == "sglang.launch_server":
                    return "sglang", module, k + 2
                if module == "vllm.entrypoints.openai.api_server":
                    return "vllm", module, k + 2
                return None
    return None
