"""The files of process runners that argtrace reads as the scripts they start (Procfiles for honcho and
foreman, Apptainer/Singularity definition files) or refuses (Ansible, just, go-task). This module owns
which one a file is, told by its name and first lines, and the call that reads it. ``check`` calls
:func:`read_runner_file` before a file is read as a shell script."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from argtrace.layers.transport.context import TransportResult, _scrubbed


def runner_refusal(label: str, data: bytes) -> str | None:
    """Why a file of a tool argtrace does not read is refused, or ``None``."""
    if data.startswith(b"#!") and not posixpath.basename(label).lower().startswith("taskfile"):
        # a script: no playbook or justfile reader takes one (each says so), and importing them costs
        # a short check's start-up (issue 18)
        return None
    from argtrace.layers.transport.refused import (
        ansible_not_a_launch,
        justfile_not_a_launch,
        taskfile_not_a_launch,
    )

    for refusal in (ansible_not_a_launch, justfile_not_a_launch, taskfile_not_a_launch):
        if why := refusal(label, data):
            return why
    return None


def runner_kind(label: str, data: bytes) -> str | None:
    """``"procfile"``, ``"apptainer"`` or ``None``."""
    if data.startswith(b"#!"):
        return None  # a script named Procfile stays a script (is_procfile); a definition file has no `#!`
    from argtrace.layers.transport.procfile import is_procfile

    if is_procfile(label, data):
        return "procfile"
    if b"%" in data[:65536]:
        from argtrace.layers.transport.apptainer import is_definition

        if is_definition(data):
            return "apptainer"
    return None


def read_runner_file(
    kind: str,
    label: str,
    data: bytes,
    *,
    env: Mapping[str, str],
    args: Sequence[str],
    follow: object,
) -> TransportResult:
    """The servers a Procfile's processes or a definition file's runscript start, secrets masked."""
    if kind == "procfile":
        from argtrace.layers.transport.procfile import analyze_procfile
        from argtrace.model import UsageError

        if args:
            raise UsageError(f"{label}: a Procfile takes no arguments (honcho starts every process in it)")
        result = analyze_procfile(label, data, env=env, follow=follow)
    else:
        from argtrace.layers.transport.apptainer import analyze_definition

        result = analyze_definition(label, data, env=env, args=args, follow=follow)
    return _scrubbed(result, env)
