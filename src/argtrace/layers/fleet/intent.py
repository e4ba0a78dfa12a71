"""``fleet --intent FILE``: the settings a launch file gives its (first) server, as ``argtrace check``
reads it without resolving (transport, shell, process and parser layers: a script, a compose file or a
Kubernetes manifest alike)."""

from __future__ import annotations

import os
from typing import Any

from argtrace.model import UsageError


def read_intent(path: str) -> tuple[str, str, dict[str, Any]]:
    """(label, framework, field -> value the file gives). :class:`UsageError` when the file starts no
    server."""
    from argtrace.check import CheckOptions, run_check

    options = CheckOptions(
        script=path,
        script_args=(),
        command_string=None,
        env=dict(os.environ),
        resolve=False,
        run_shellcheck=False,
    )
    report = run_check(options)
    if not report.servers:
        raise UsageError(f"--intent {path}: no SGLang or vLLM server start was found in it")
    wanted: dict[str, Any] = {}
    for setting in report.settings:
        seen = [o for o in setting.history if o.layer == "parser" and o.known]
        if seen and not setting.unknown_to_framework:
            wanted[setting.name] = seen[-1].value
    return path, report.servers[0].framework, wanted
