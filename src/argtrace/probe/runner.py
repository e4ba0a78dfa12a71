"""``argtrace run``: execute a launch script for real with its server start intercepted, then compare.

1. The static prediction (``check``'s layers) comes first: it names the server starts to expect and is
   what the capture is compared with.
2. Refuse, with the reason and without running anything, when interception cannot be guaranteed: an
   interpreter called by path with ``-I``/``-E``/``-S`` (no ``PYTHONPATH``, no PATH shim), a launcher
   that is not Python, ``env -i``/``sudo`` in front of the server (they drop the environment), or a
   container/cluster launcher (``docker run``, ``srun``...) whose inner server no probe can reach.
3. Run ``bash SCRIPT ARGS`` (or ``bash -c``) in a new session with the probe directory's environment; stop
   when every predicted server start was captured (plus a short grace), when the script exits, or at the
   timeout; then end the whole process group. This is ``collector.run_probe`` through the host seam: called
   in-process here, or on the ``--host`` node over the ssh connection (the same function either way), so
   the script, its arguments, its files and the environment are the node's there.
4. Every capture is compared with its predicted server
   (:func:`argtrace.layers.observed.compare_with_prediction`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from argtrace.model import Evidence, Report, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.remote.host import Host
_CONTAINER = re.compile(
    r"(?m)^[^#\n]*\b(?:docker|podman|nerdctl)\s+(?:run|exec|compose)\b|^[^#\n]*\b(?:kubectl\s+(?:run|exec|apply)"
    r"|srun|sbatch|salloc|apptainer\s+(?:run|exec)|singularity\s+(?:run|exec)|enroot\s+start)\b"
)
# What starts the server of each launch file that is no script (transport's ``manifest_kind``): never a
# process argtrace runs, so nothing can be intercepted.
_NOT_A_SCRIPT = {
    "compose": "a compose manifest is not a script: its containers start where argtrace cannot reach",
    "kubernetes": "a kubernetes manifest is not a script: its containers start where argtrace cannot reach",
    "systemd": "a systemd unit is not a script: systemd's manager starts its ExecStart= (`systemctl start`), "
    "where argtrace cannot intercept it",
    "skypilot": "a SkyPilot task is not a script: `sky launch` runs its setup: and run: on the cluster's "
    "nodes, where argtrace cannot reach",
}


@dataclass(frozen=True)
class RunOptions:
    """How ``argtrace run`` executes the script: how long to wait for the server start, whether stubs stand
    in for ``kill``, ``rm``, ``ssh`` and the like, whether to keep the probe directory, and whether secrets
    are shown."""

    timeout: float = 60.0
    stubs: bool = True
    keep: bool = False
    show_secrets: bool = False


def refusal_reasons(
    servers: Sequence[ServerCommand],
    script_text: str,
    host: Host | None = None,
    interpreters: Sequence[str | None] = (),
) -> list[tuple[str, str | None]]:
    """Why interception cannot be guaranteed, as (reason, at); empty when ``run`` may proceed. Files named
    by the script (an interpreter, a console script) are looked at on ``host``: where the launch runs.
    ``interpreters``: the file each server's bare interpreter name (``python3``) resolves to there."""
    from argtrace.frameworks.detect import detect_server
    from argtrace.remote.host import current_host

    host = host or current_host()

    reasons: list[tuple[str, str | None]] = []
    try:
        from argtrace.layers.transport import manifest_kind

        kind = manifest_kind(script_text.encode())
    except ImportError:  # pragma: no cover - the transport layer is part of the package
        kind = None
    if kind is not None:
        reasons.append((_NOT_A_SCRIPT.get(kind, f"a {kind} file is not a script"), None))
    m = _CONTAINER.search(script_text)
    if m:
        reasons.append(
            (
                f"the script starts a container or cluster job ({m.group(0).strip()[:60]!r}): "
                "a server inside it "
                "cannot be intercepted from here",
                None,
            )
        )
    for index, server in enumerate(servers):
        words = [w.text or "" for w in server.argv]
        found = detect_server(words)
        if found is None:
            continue
        if "sudo" in found.wrappers:
            reasons.append(
                ("`sudo` resets the environment (PATH and PYTHONPATH), so the probe is dropped", server.at)
            )
        head = words[: found.command_index]
        if "env" in found.wrappers and any(w in ("-i", "--ignore-environment", "-") for w in head):
            reasons.append(
                ("`env -i` starts the server with an empty environment: the probe is dropped", server.at)
            )
        if any(w in ("PYTHONPATH", "--unset=PYTHONPATH") or w.startswith("-uPYTHONPATH") for w in head):
            reasons.append(("`env -u PYTHONPATH` removes the probe from the server's environment", server.at))
        command = words[found.command_index]
        if found.interpreter is not None:
            options = words[found.command_index + 1 : found.server_args_start]
            isolated = [w for w in options if _isolating(w)]
            if "/" in command and isolated:
                reasons.append(
                    (
                        f"{command} {' '.join(isolated)}: an interpreter called by path "
                        "with -I/-E/-S ignores "
                        "PYTHONPATH and bypasses the PATH shims",
                        server.at,
                    )
                )
            elif "/" in command and _exists(host, command) and not _is_python(host, command):
                reasons.append((f"{command} is not a Python interpreter", server.at))
            elif "/" not in command and index < len(interpreters) and interpreters[index]:
                path = str(interpreters[index])
                flags = _wrapper_flags(host, path)
                if flags:
                    reasons.append(
                        (
                            f"`{command}` is {path}, a wrapper script that runs Python with "
                            f"{' '.join(flags)}: the probe would not load, the server would start for real",
                            server.at,
                        )
                    )
        elif "/" in command and _exists(host, command):
            shebang = _shebang(host, command)
            if shebang is None and not _is_python(host, command):
                reasons.append((f"{command} is not a Python console script (a binary launcher)", server.at))
            elif shebang and any(_isolating(w) for w in shebang[1:]):
                reasons.append((f"{command}'s #! line runs Python with {' '.join(shebang[1:])}", server.at))
    return reasons


def _isolating(word: str) -> bool:
    if not word.startswith("-") or word.startswith(("--", "-W", "-X")):
        return False
    return any(c in word[1:] for c in "IES")


def _exists(host: Host, path: str) -> bool:
    from argtrace.remote.host import HostError

    try:
        return host.stat(path).exists
    except HostError:
        return False


def _shebang(host: Host, path: str) -> list[str] | None:
    from argtrace.remote.host import HostError

    try:
        first = host.read_bytes(path, limit=512).split(b"\n", 1)[0]
    except HostError:
        return None
    if not first.startswith(b"#!"):
        return None
    return first[2:].decode("utf-8", "replace").split()


def _wrapper_flags(host: Host, path: str) -> list[str]:
    """The ``-I``/``-E``/``-S`` options a wrapper script (``#!/bin/sh ... exec python3 -S "$@"``) gives the
    Python it runs, read from its ``exec``/``python`` lines; empty for a real interpreter or a binary."""
    from argtrace.remote.host import HostError

    shebang = _shebang(host, path)
    if shebang is None or any("python" in w for w in shebang[:2]):
        return []  # a binary (the interpreter itself) or a Python script
    try:
        text = host.read_bytes(path, limit=64 * 1024).decode("utf-8", "replace")
    except HostError:
        return []
    flags: list[str] = []
    for line in text.splitlines()[1:]:
        code = line.split("#", 1)[0]
        if "exec" in code or "python" in code:
            flags += [w for w in re.findall(r"[^\s\"';|&()]+", code) if _isolating(w) and w not in flags]
    return flags


def _is_python(host: Host, path: str) -> bool:
    name = posixpath.basename(host.realpath(path))
    if re.match(r"^(?:python|pypy)\d*(?:\.\d+)?[a-z]?$", name):
        return True
    shebang = _shebang(host, path)
    return bool(shebang and any("python" in w for w in shebang[:2]))


def run_launch(
    report: Report,
    *,
    script: str | None,
    command_string: str | None,
    script_args: Sequence[str],
    env: Mapping[str, str],
    options: RunOptions,
    python: str | None = None,
    script_text: str = "",
    reanalyse: Callable[[Report, list[dict[str, Any]]], Report] | None = None,
) -> Report:
    """Execute the launch with the probe and fold the captures into ``report`` (the static prediction).

    ``reanalyse`` gets the prediction and the captures before they are folded and returns the prediction to
    fold them into: ``commands/run.py`` analyses the launch again as the release the run imported."""
    from argtrace.remote.host import current_host
    from argtrace.rules import process_observed as rules

    host = current_host()
    report.command = "run"
    from argtrace.frameworks.installed import server_interpreter

    # Resolved before the run (on the host: server_interpreter looks there under --host): the script may
    # create or change interpreters (venvs, symlinks) as it runs.
    interpreters = [server_interpreter(server, python) for server in report.servers]
    reasons = refusal_reasons(report.servers, script_text, host, interpreters)
    if reasons:
        for reason, at in reasons:
            report.findings.append(rules.PR106.finding(f"not run: {reason}", at=at or script or "<-c>"))
        report.sections["capture"] = {"ran": False, "refused": [r for r, _ in reasons]}
        return report

    from argtrace.probe import launch_environment, probe_files, shim_names

    if command_string is not None:
        command = (
            ["bash", "-c", command_string, *script_args] if script_args else ["bash", "-c", command_string]
        )
    else:
        assert script is not None
        command = ["bash", script, *script_args]
    done = host.run_probe(
        command,
        env,
        files=probe_files(),
        names=shim_names(),
        expected=len(report.servers),
        timeout=options.timeout,
        stubs=options.stubs,
        keep=options.keep,
    )
    captures = done.captures
    for capture in captures:
        capture["env"] = launch_environment(capture.get("env") or {}, done.probe_dir)
    status, timed_out, tail, stub_calls = done.exit_status, done.timed_out, done.output_tail, done.stub_calls
    if reanalyse is not None:
        report = reanalyse(report, captures)
        report.command = "run"
    _fold(
        report,
        captures,
        stub_calls,
        status,
        timed_out,
        tail,
        options,
        interpreters=interpreters,
        script=script,
    )
    note = startup_files_note(env, host.label if host.is_remote else None, stubs=options.stubs)
    if note:
        report.notes.append(note)
    if done.kept:
        report.notes.append(f"probe directory kept: {host.describe(done.probe_dir)}")
    return report


def shell_level(env: Mapping[str, str]) -> int:
    """``SHLVL`` as bash reads it: unset or not a number is 0."""
    try:
        return int(env.get("SHLVL") or "0")
    except ValueError:
        return 0


def from_a_shell_on_the_node(env: dict[str, str]) -> dict[str, str]:
    """The node's ssh session environment as a shell on the node passes it on (at least one level in).

    A non-interactive ssh session hands its command SHLVL=0; Debian's and Ubuntu's bash then source
    ``~/.bashrc`` for the launch (``SSH_CLIENT`` set, shell level below 2), running whatever it runs with
    the probe's stubs on PATH (a stubbed ``rm`` leaves pyenv's rehash lock behind). A user typing
    ``bash launch.sh`` at the node's prompt starts it one level in, without ``~/.bashrc``.
    """
    return env if shell_level(env) >= 1 else {**env, "SHLVL": "1"}


def startup_files_note(env: Mapping[str, str], node: str | None, *, stubs: bool) -> str | None:
    """Why stubbed commands may come from the node's ``~/.bashrc``: Debian's and Ubuntu's bash source it for a
    non-interactive shell started over ssh (``SSH_CLIENT`` set, shell level below 2 once incremented), which
    a launch started with a non-interactive ssh session's environment (SHLVL=0) is."""
    if node is None or not stubs or not (env.get("SSH_CLIENT") or env.get("SSH2_CLIENT")):
        return None
    level = shell_level(env)
    if level >= 1:
        return None
    return (
        f"bash on {node} may source ~/.bashrc before the launch (SSH_CLIENT is set and SHLVL is {level}, "
        f"as for `ssh {node} bash SCRIPT` with Debian's or Ubuntu's bash); a stubbed command it runs "
        "(rm, sleep...) is recorded, not run: e.g. a `pyenv rehash` lock is left behind. "
        "`--env SHLVL=1` starts the launch as from a shell on the node"
    )


def _fold(
    report: Report,
    captures: list[dict[str, Any]],
    stub_calls: list[dict[str, Any]],
    status: int | None,
    timed_out: bool,
    tail: str,
    options: RunOptions,
    *,
    interpreters: Sequence[str | None],
    script: str | None,
) -> None:
    from argtrace.layers.observed import Observed, compare_with_prediction, merge_observations
    from argtrace.redact import redact_argv, redact_env, remember, scrub, secret_values
    from argtrace.rules import process_observed as rules

    label_at = f"run:{script or '<-c>'}"
    secrets: set[str] = set()
    for capture in captures:
        secrets |= secret_values(capture.get("env") or {}, capture.get("argv") or [])
    remember(*secrets)

    def safe_text(text: str) -> str:
        return text if options.show_secrets else scrub(text, secrets)

    # Stub calls.
    recorded = [c for c in stub_calls if c.get("kind") == "stub"]
    missing = [c for c in stub_calls if c.get("kind") == "not-found"]
    if recorded:
        shown = [" ".join(c.get("argv") or []) for c in recorded]
        uniq = list(dict.fromkeys(shown))
        more = f" and {len(uniq) - 12} more" if len(uniq) > 12 else ""
        report.findings.append(
            rules.PR108.finding(
                f"not run (recorded instead): {'; '.join(safe_text(s) for s in uniq[:12])}{more}",
                at=label_at,
                evidence=[Evidence("process", label_at, safe_text(s)) for s in uniq[:12]],
            )
        )

    # Captures against predictions.
    predicted = report.servers
    for index, capture in enumerate(captures):
        argv = [str(w) for w in capture.get("argv") or []]
        interpreter = capture.get("executable")
        obs = Observed(
            argv=argv,
            env=capture.get("env"),
            server_args_start=capture_args_start(argv, capture.get("entrypoint")),
            interpreter=interpreter,
            label=f"the real run (capture {index + 1})" if len(captures) > 1 else "the real run",
            at=f"{label_at}#capture{index + 1}",
            framework=capture.get("framework"),
            framework_version=capture.get("framework_version"),
        )
        if index >= len(predicted):
            continue
        server = predicted[index]
        predicted_interpreter = interpreters[index] if index < len(interpreters) else None
        result = compare_with_prediction(
            server,
            obs,
            assumed_version=report.framework.version,
            predicted_interpreter=predicted_interpreter,
        )
        tag = index + 1 if len(predicted) > 1 or len(captures) > 1 else None
        for finding in result.findings:
            report.findings.append(replace(finding, server=tag) if tag else finding)
        if index + 1 == _chosen(report):
            merge_observations(report.settings, result.observations)
    if captures and len(captures) != len(predicted):
        report.findings.append(
            rules.PR105.finding(
                f"the static analysis predicts {len(predicted)} server start(s); the real run started "
                f"{len(captures)}",
                at=label_at,
            )
        )
    remote = [
        c
        for c in recorded
        if c.get("name") in ("ssh", "kubectl")
        and any(("sglang" in w or "vllm" in w) for w in c.get("argv") or [])
    ]
    if remote:
        report.notes.append(
            f"{len(remote)} server start(s) on another host were recorded, not run: "
            + "; ".join(safe_text(" ".join(c.get("argv") or []))[:120] for c in remote[:3])
        )
    if not captures and not remote:
        if missing:
            what = "; ".join(f"{' '.join(c.get('argv') or [])[:80]}: command not found" for c in missing[:3])
        elif timed_out:
            what = f"no server start within {options.timeout:g} s"
        else:
            what = f"the script exited with status {status} before any server start"
        report.findings.append(
            rules.PR110.finding(
                safe_text(what),
                at=label_at,
                evidence=[Evidence("process", label_at, safe_text(line)) for line in tail.splitlines()[-8:]],
            )
        )

    def show_argv(words: list[str]) -> list[str | None]:
        if options.show_secrets:
            return list(words)
        return [scrub(w, secrets) if w is not None else None for w in redact_argv(words)]

    def show_env(env: Mapping[str, str]) -> dict[str, str | None]:
        if options.show_secrets:
            return dict(env)
        return {k: (scrub(v, secrets) if v is not None else None) for k, v in redact_env(env).items()}

    for index, c in enumerate(captures, start=1):
        words = show_argv([str(w) for w in c.get("argv") or []])
        version = c.get("framework_version") or "not installed for this interpreter"
        report.notes.append(f"captured server start {index}: {' '.join(w or '' for w in words)}")
        report.notes.append(
            f"    interpreter {c.get('executable')} (Python {c.get('python_version') or '?'}), "
            f"{c.get('framework')} {version}, cwd {c.get('cwd')}; stopped before the server ran"
        )
    report.sections["capture"] = {
        "ran": True,
        "exit_status": status,
        "timed_out": timed_out,
        "stubs": options.stubs,
        "servers": [
            {
                "argv": show_argv([str(w) for w in c.get("argv") or []]),
                "env": show_env(c.get("env") or {}),
                "cwd": c.get("cwd"),
                "interpreter": c.get("executable"),
                "interpreter_realpath": c.get("executable_realpath"),
                "python_version": c.get("python_version"),
                "framework": c.get("framework"),
                "framework_version": c.get("framework_version"),
                "framework_location": c.get("framework_location"),
                "via": c.get("via"),
                "heavy_modules_loaded": c.get("heavy_modules_loaded", []),
            }
            for c in captures
        ],
        "recorded_commands": [show_argv([str(w) for w in c.get("argv") or []]) for c in recorded],
        "missing_commands": [c.get("name") for c in missing],
        "output_tail": safe_text(tail),
    }


def capture_args_start(argv: Sequence[str], entrypoint: str | None) -> int | None:
    """Index of the first argument the framework's parser gets, in a captured argv."""
    from argtrace.layers.observed import detect_observed

    found = detect_observed(argv)
    if found is not None:
        return found[2]
    if entrypoint and entrypoint in argv:
        return list(argv).index(entrypoint) + 1
    return None


def _chosen(report: Report) -> int:
    """The server the report's settings describe (``--server N``); the first when unknown."""
    value = report.sections.get("server")
    return value if isinstance(value, int) else 1
