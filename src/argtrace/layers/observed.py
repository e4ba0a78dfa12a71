"""Observed processes: what a running (``ps``, ``check --pid``) or captured (``run``) server process got.

Running processes are read with psutil (``/proc/PID/cmdline``, ``environ``, ``cwd``, ``exe``, listening
sockets). ``/proc/PID/environ`` is the environment the process was *started* with: a variable the server
sets or changes in itself later is not visible there.

SGLang renames its worker processes with ``setproctitle`` (``sglang::scheduler_TP0``,
``sglang::detokenizer``, ``sglang::data_parallel_controller``, ``sglang::tokenizer_worker``); vLLM names
them ``VLLM::EngineCore`` / ``VLLM::EngineCore_DP0``, ``VLLM::Worker_TP0``, ``VLLM::APIServer_0``,
``VLLM::DPCoordinator`` (prefix ``VLLM_PROCESS_NAME_PREFIX``). A process whose argv still looks like a
server start but whose parent is one too (a forked worker) is grouped under its parent.

The comparison with the static prediction (:func:`compare_with_prediction`) is shared by ``check --pid``
and ``run``: every disagreement between the argv/environment/interpreter the script analysis predicted and
the ones observed is a finding (``PR100``-``PR199``, :mod:`argtrace.rules.process_observed`).
"""

from __future__ import annotations

import difflib
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from argtrace.layers.observed_process import ObservedProcess, classify_title, detect_observed
from argtrace.model import Evidence, LayerResult, Observation, ServerCommand, Setting, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ObservedProcess", "classify_title", "detect_observed"]  # their home is observed_process.py

_FRAMEWORK_ENV = re.compile(r"^(SGLANG_|VLLM_|CUDA_|NCCL_|HF_|TORCH_|PYTORCH_|TRANSFORMERS_|OMP_|NVIDIA_)")
_EXTRA_ENV = frozenset({"PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH"})
# Variables bash itself maintains: never a disagreement worth reporting.
_SHELL_MANAGED = frozenset({"SHLVL", "_", "PWD", "OLDPWD", "BASH_ENV", "PS1", "PS2", "COLUMNS", "LINES"})
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e-?\d+)?$")


def _psutil() -> Any:
    import psutil

    return psutil


def inspect_process(pid: int, *, with_children: bool = True, versions: bool = True) -> ObservedProcess:
    """Read one process. Raises ``UsageError`` when there is no such process."""
    psutil = _psutil()

    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            argv = tuple(proc.cmdline())
            ppid = proc.ppid()
            started = proc.create_time()
            username = _try(proc.username)
            exe = _try(proc.exe)
            cwd = _try(proc.cwd)
    except psutil.NoSuchProcess as exc:
        raise UsageError(f"--pid {pid}: no such process") from exc
    except psutil.AccessDenied as exc:
        raise UsageError(
            f"--pid {pid}: permission denied reading the process (run as its user or root)"
        ) from exc
    # setproctitle pads the rewritten argv area: one word with trailing blanks, or empty trailing words.
    argv = tuple(a for a in argv if a != "") if argv else argv
    observed = ObservedProcess(
        pid=pid, ppid=ppid, started=started, argv=argv, exe=exe, cwd=cwd, username=username
    )
    try:
        observed.env = dict(proc.environ())
    except psutil.AccessDenied:
        observed.env_error = "permission denied reading /proc/PID/environ"
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        observed.env_error = "the process exited"
    framework, role = classify_title(argv)
    if framework is not None:
        observed.framework, observed.role, observed.title = framework, role or "worker", argv[0].strip()
    else:
        found = detect_observed(argv)
        if found is not None:
            observed.framework, observed.entrypoint, observed.server_args_start = found
            observed.role = "server"
    observed.listening = _listening(proc)
    if versions and observed.role == "server":
        observed.framework_version = process_framework_version(observed)
        observed.python_version = process_python_version(observed)
    if with_children:
        for child in _try(lambda: proc.children(recursive=True)) or []:
            try:
                item = inspect_process(child.pid, with_children=False, versions=False)
            except UsageError:
                continue
            if item.role == "server":  # a forked worker keeps its parent's argv
                item.role = "worker"
            observed.children.append(item)
        ports = set(observed.listening)
        for child in observed.children:
            ports.update(child.listening)
        observed.listening = tuple(sorted(ports))
    return observed


def _try(fn: Any) -> Any:
    psutil = _psutil()
    try:
        return fn()
    except (psutil.Error, OSError):
        return None


def _listening(proc: Any) -> tuple[str, ...]:
    psutil = _psutil()
    try:
        conns = proc.net_connections(kind="inet")
    except (psutil.Error, OSError):
        return ()
    out = set()
    for c in conns:
        if c.status == psutil.CONN_LISTEN and c.laddr:
            out.add(f"{c.laddr.ip}:{c.laddr.port}")
    return tuple(sorted(out))


def process_framework_version(observed: ObservedProcess) -> str | None:
    """The framework version the observed interpreter imports: the ``.dist-info`` record on its
    ``PYTHONPATH`` or in its environment's site-packages, read from files (the process's own interpreter
    is never run again to ask: its environment may carry a ``sitecustomize.py``)."""
    if observed.framework is None:
        return None
    from argtrace.frameworks.site_packages import process_version

    return process_version(
        observed.framework, exe=observed.exe, argv=observed.argv, env=observed.env, cwd=observed.cwd
    ).version


_PY_VERSION = re.compile(r"python(\d+\.\d+)$")


def process_python_version(observed: ObservedProcess) -> str | None:
    if not observed.exe:
        return None
    m = _PY_VERSION.search(os.path.basename(os.path.realpath(observed.exe)))
    return m.group(1) if m else None


def find_servers(framework: str | None = None) -> list[ObservedProcess]:
    """Running SGLang and vLLM servers (top-level processes), each with its children."""
    from argtrace.remote.host import current_host

    host = current_host()
    if host.is_remote:  # argtrace --host: the node's /proc, read by the collector
        from argtrace.layers.observed_remote import find_servers_on

        return [s for s in find_servers_on(host, framework) if isinstance(s, ObservedProcess)]
    psutil = _psutil()

    candidates: dict[int, int | None] = {}
    for proc in psutil.process_iter(["pid", "ppid", "cmdline"]):
        argv = [a for a in (proc.info.get("cmdline") or []) if a != ""]
        if not argv or proc.info["pid"] == os.getpid():
            continue
        found = detect_observed(argv)
        if found is not None and (framework is None or found[0] == framework):
            candidates[proc.info["pid"]] = proc.info.get("ppid")
    tops = []
    for pid in candidates:
        if not _has_server_ancestor(pid, candidates):
            tops.append(pid)
    servers = []
    for pid in sorted(tops):
        try:
            servers.append(inspect_process(pid))
        except UsageError:
            continue
    return servers


def _has_server_ancestor(pid: int, candidates: Mapping[int, int | None]) -> bool:
    seen = set()
    parent = candidates.get(pid)
    psutil = _psutil()
    while parent and parent not in seen:
        if parent in candidates:
            return True
        seen.add(parent)
        try:
            parent = psutil.Process(parent).ppid()
        except psutil.Error:
            return False
    return False


# Linux's PID_MAX_LIMIT is 2**22; anything above a C int cannot name a process on any system.
_MAX_PID = 2**31 - 1


def parse_pid(pid: str | int) -> int:
    """``--pid``'s number; :class:`UsageError` for text, zero, a negative number or one no process has
    (``-1`` and ``0`` mean "every process" / "my group" to kill(2), never one process)."""
    try:
        number = int(pid)
    except ValueError:
        raise UsageError(f"--pid needs a process id or 'auto', got {pid!r}") from None
    if number <= 0:
        raise UsageError(f"--pid {number}: a process id is a positive integer")
    if number > _MAX_PID:
        raise UsageError(f"--pid {number}: no such process")
    return number


def resolve_pid(pid: str | int, framework: str | None = None) -> ObservedProcess:
    """``--pid N`` or ``--pid auto``: the server process to compare (a worker's pid leads to its server)."""
    if isinstance(pid, str) and pid.strip().lower() == "auto":
        servers = find_servers(framework)
        if not servers:
            what = framework or "SGLang or vLLM"
            raise UsageError(f"--pid auto: no running {what} server process found")
        if len(servers) > 1:
            listing = "; ".join(f"{s.pid} ({s.framework}, {' '.join(s.argv[:4])} ...)" for s in servers)
            raise UsageError(f"--pid auto: {len(servers)} servers are running, pass one of them: {listing}")
        return servers[0]
    number = parse_pid(pid)
    from argtrace.remote.host import current_host

    host = current_host()
    if host.is_remote:  # argtrace --host: the node's process
        from argtrace.layers.observed_remote import resolve_pid_on

        found = resolve_pid_on(host, number)
        assert isinstance(found, ObservedProcess)
        return found
    observed = inspect_process(number)
    if observed.role != "server" and observed.framework is not None:
        # A worker: find the server it belongs to.
        psutil = _psutil()
        try:
            for parent in psutil.Process(number).parents():
                candidate = inspect_process(parent.pid)
                if candidate.role == "server":
                    return candidate
        except psutil.Error:
            pass
    return observed


# ------------------------------------------------------------------------------------------ comparison


def simple_flags(words: Sequence[str | None]) -> dict[str, str | None]:
    """``--flag value`` / ``--flag=value`` / ``--flag`` -> {flag: value}; the last occurrence wins.

    Schema-free, for observations only: a word after a flag is its value unless it starts with ``-`` (and is
    not a number).
    """
    out: dict[str, str | None] = {}
    i = 0
    items = list(words)
    while i < len(items):
        word = items[i]
        if word is not None and word.startswith("--") and len(word) > 2:
            if "=" in word:
                flag, value = word.split("=", 1)
                out[flag] = value
            else:
                nxt = items[i + 1] if i + 1 < len(items) else None
                if i + 1 < len(items) and (nxt is None or not nxt.startswith("-") or _NUMBER.match(nxt)):
                    out[word] = nxt
                    i += 1
                else:
                    out[word] = ""
        i += 1
    return out


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Observed:
    """What a comparison needs of an observation: argv, env, interpreter, and what to call it."""

    argv: Sequence[str]
    env: Mapping[str, str] | None
    server_args_start: int | None
    interpreter: str | None  # the resolved path of the interpreter that ran
    label: str  # "pid 1234" or "run capture"
    at: str  # "pid:1234" or "run:launch.sh"
    framework: str | None = None
    framework_version: str | None = None
    started: float | None = None


def compare_with_prediction(
    server: ServerCommand,
    observed: Observed,
    *,
    assumed_version: str | None = None,
    script: str | None = None,
    predicted_interpreter: str | None = None,
) -> LayerResult:
    """Every disagreement between the static prediction of ``server`` and an observed process."""
    from argtrace.rules import process_observed as rules

    result = LayerResult()
    findings = result.findings
    if observed.framework is not None and observed.framework != server.framework:
        findings.append(
            rules.PR109.finding(
                f"{observed.label} runs {observed.framework}, but the launch starts {server.framework}",
                at=observed.at,
            )
        )
        return result
    if observed.server_args_start is None:
        findings.append(
            rules.PR109.finding(
                f"{observed.label} is not an SGLang or vLLM server start: {' '.join(observed.argv[:6])}",
                at=observed.at,
            )
        )
        return result

    # argv: the words handed to the framework's parser.
    predicted = [w.text for w in server.server_args]
    origins = [w.origin for w in server.server_args]
    got = list(observed.argv[observed.server_args_start :])
    known_pairs: list[tuple[int, str]] = []
    pred_tokens = [p if p is not None else f"\x00unknown{i}" for i, p in enumerate(predicted)]
    matcher = difflib.SequenceMatcher(a=pred_tokens, b=got, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        pred_slice, got_slice = predicted[i1:i2], got[j1:j2]
        if tag == "replace" and (i2 - i1) == (j2 - j1) and all(p is None for p in pred_slice):
            for k, value in enumerate(got_slice):
                known_pairs.append((i1 + k, value))
            continue
        unknown_only = [p for p in pred_slice if p is not None] == [] and tag != "insert"
        at = origins[i1].at if i1 < len(origins) else (origins[-1].at if origins else None)
        if unknown_only and tag == "replace":
            for k in range(min(i2 - i1, j2 - j1)):
                known_pairs.append((i1 + k, got_slice[k]))
        pred_text = " ".join(p if p is not None else "<unknown>" for p in pred_slice) or "(nothing)"
        got_text = " ".join(got_slice) or "(nothing)"
        verb = {"replace": "differ", "delete": "are missing", "insert": "were added"}[tag]
        findings.append(
            rules.PR100.finding(
                f"server argv words {verb}: predicted {pred_text!r}, {observed.label} got {got_text!r}",
                at=at,
                setting=_setting_of(predicted, got, i1, j1),
                evidence=[
                    Evidence("process", at, f"predicted: {pred_text}"),
                    Evidence("process", observed.at, f"observed: {got_text}"),
                ],
            )
        )
    for index, value in known_pairs:
        origin = origins[index]
        findings.append(
            rules.PR103.finding(
                f"argv word {server.server_args_start + index} could not be known statically "
                f"({origin.reason or origin.expansion or 'unknown'}); {observed.label} got {value!r}",
                at=origin.at,
                setting=_setting_of(predicted, got, index, None),
                evidence=[Evidence("process", observed.at, value)],
            )
        )

    # Settings: one observation per flag whose observed value differs from the prediction.
    pred_flags, got_flags = simple_flags(predicted), simple_flags(got)
    for flag in sorted(set(pred_flags) | set(got_flags)):
        if pred_flags.get(flag, "\x01") == got_flags.get(flag, "\x01"):
            continue
        observed_value: str | None = got_flags.get(flag)
        result.observations.setdefault(_dest(flag), (flag, []))[1].append(
            Observation(
                "process",
                observed_value if flag in got_flags else None,
                at=observed.at,
                known=flag in got_flags,
                reason=None if flag in got_flags else f"{flag} is not in the observed argv",
                by=observed.label,
                detail={"observed": True},
            )
        )

    # Environment.
    start_only = "'s start environment (/proc/PID/environ)" if observed.at.startswith("pid:") else ""
    if observed.env is not None:
        for name, env_value in sorted(server.env.items()):
            want = env_value.value
            have = observed.env.get(name)
            if name in _SHELL_MANAGED or env_value.origin.expansion == "bash":
                continue
            if want is None:
                if have is not None:
                    findings.append(
                        rules.PR103.finding(
                            f"{name} could not be known statically "
                            f"({env_value.origin.reason or env_value.origin.expansion or 'unknown'}); "
                            f"{observed.label} has {have!r}",
                            at=env_value.origin.at,
                            evidence=[Evidence("process", observed.at, f"{name}={have}")],
                        )
                    )
                continue
            if have == want or (name == "PATH" and have is not None and _prepended(want, have)):
                continue
            from_script = env_value.origin.at is not None and not str(env_value.origin.at).startswith("<")
            what = "is not set" if have is None else f"is {have!r}"
            findings.append(
                rules.PR101.finding(
                    f"{name}: predicted {want!r}, but in {observed.label}{start_only} it {what}",
                    at=env_value.origin.at,
                    severity="error" if from_script else "warning",
                    evidence=[
                        Evidence(
                            "process", observed.at, f"{name}={have}" if have is not None else f"{name} unset"
                        )
                    ],
                )
            )
        for name in sorted(observed.env):
            if name in server.env or not _FRAMEWORK_ENV.match(name):
                continue
            findings.append(
                rules.PR101.finding(
                    f"{name}={observed.env[name]!r} is set in {observed.label} but not by the script or "
                    "--env (a sourced file, the shell profile, the container or the parent process set it)",
                    at=observed.at,
                    severity="warning",
                    evidence=[Evidence("process", observed.at, f"{name}={observed.env[name]}")],
                )
            )

    # Interpreter.
    if predicted_interpreter and observed.interpreter:
        if not _same_file(predicted_interpreter, observed.interpreter):
            findings.append(
                rules.PR102.finding(
                    f"the static analysis resolved the interpreter to {predicted_interpreter}, but "
                    f"{observed.label} ran {observed.interpreter}",
                    at=server.at,
                    evidence=[Evidence("process", observed.at, observed.interpreter)],
                )
            )
    if assumed_version and observed.framework_version and assumed_version != observed.framework_version:
        findings.append(
            rules.PR107.finding(
                f"the static analysis assumed {server.framework} {assumed_version}; {observed.label} imports "
                f"{observed.framework_version}",
                at=observed.at,
            )
        )
    if script and observed.started is not None:
        from argtrace.remote.host import HostError, current_host

        try:
            mtime = current_host().stat(script).mtime  # the node's script under argtrace --host
        except HostError:
            mtime = None
        if mtime is not None and mtime > observed.started + 1:
            findings.append(
                rules.PR104.finding(
                    f"{observed.label} started {_ago(observed.started)}, before {script} was last changed "
                    f"({_ago(mtime)}): it runs an older version of the launch",
                    at=script,
                )
            )
    return result


def _prepended(predicted: str, observed: str) -> bool:
    """True when ``observed`` is ``predicted`` with entries put in front (pyenv, conda, uv run do that)."""
    want, have = predicted.split(os.pathsep), observed.split(os.pathsep)
    return len(have) >= len(want) and have[len(have) - len(want) :] == want


def _setting_of(predicted: Sequence[str | None], got: Sequence[str], i: int, j: int | None) -> str | None:
    """The setting a differing word belongs to: the flag itself or the flag just before it."""
    for words, k in ((predicted, i), (got, j)):
        if k is None or k >= len(words) + 1:
            continue
        for idx in (k, k - 1):
            if 0 <= idx < len(words):
                w = words[idx]
                if w is not None and w.startswith("--"):
                    return _dest(w.split("=", 1)[0])
    return None


def _same_file(a: str, b: str) -> bool:
    from argtrace.remote.host import current_host

    host = current_host()
    if host.is_remote:  # the node's paths: resolved there
        return a == b or host.realpath(a) == host.realpath(b)
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _realpath(path: str) -> str:
    from argtrace.remote.host import current_host

    host = current_host()
    return host.realpath(path) if host.is_remote else os.path.realpath(path)


def _ago(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def analyze_pid(
    pid: str | int,
    server: ServerCommand,
    *,
    assumed_version: str | None = None,
    script: str | None = None,
    predicted_interpreter: str | None = None,
    show_secrets: bool = False,
) -> LayerResult:
    """``check --pid N|auto``: compare the running process with the predicted ``server``.

    Raises ``UsageError`` when the pid does not exist or ``auto`` finds no or several servers.
    """
    observed = resolve_pid(pid, server.framework)
    label = f"pid {observed.pid}"
    obs = Observed(
        argv=observed.argv,
        env=observed.env,
        server_args_start=observed.server_args_start,
        interpreter=_realpath(observed.exe) if observed.exe else None,
        label=label,
        at=f"pid:{observed.pid}",
        framework=observed.framework,
        framework_version=observed.framework_version,
        started=observed.started,
    )
    result = compare_with_prediction(
        server,
        obs,
        assumed_version=assumed_version,
        script=script,
        predicted_interpreter=predicted_interpreter,
    )
    result.sections["observed_process"] = process_section(observed, show_secrets=show_secrets)
    return result


def process_section(
    observed: ObservedProcess, *, show_secrets: bool = False, all_env: bool = False
) -> dict[str, Any]:
    """The JSON view of an observed process (redacted unless ``show_secrets``)."""
    from argtrace.redact import redact_argv, redact_env, remember, secret_values

    env = observed.env or {}
    shown_env: dict[str, str | None] = {
        k: v for k, v in env.items() if all_env or _FRAMEWORK_ENV.match(k) or k in _EXTRA_ENV
    }
    secrets = secret_values(env, observed.argv)
    remember(*secrets)  # the whole start environment's secrets, shown or not: masked in every output
    argv: list[str | None] = list(observed.argv)
    if not show_secrets:
        from argtrace.redact import scrub

        argv = [scrub(w, secrets) if w is not None else None for w in redact_argv(argv)]
        shown_env = {
            k: (scrub(v, secrets) if v is not None else None) for k, v in redact_env(shown_env).items()
        }
    return {
        "pid": observed.pid,
        "ppid": observed.ppid,
        "started": observed.started_iso(),
        "user": observed.username,
        "framework": observed.framework,
        "framework_version": observed.framework_version,
        "entrypoint": observed.entrypoint,
        "role": observed.role,
        "title": observed.title,
        "argv": argv,
        "env": shown_env,
        "env_note": observed.env_error
        or "the start environment (/proc/PID/environ): later changes the process made to itself are "
        "not visible",
        "cwd": observed.cwd,
        "interpreter": observed.exe,
        "python_version": observed.python_version,
        "listening": list(observed.listening),
        "children": [
            {
                "pid": c.pid,
                "role": c.role,
                "title": c.title or " ".join(c.argv[:3]),
                "listening": list(c.listening),
            }
            for c in observed.children
        ],
    }


def merge_observations(
    settings: list[Setting], observations: Mapping[str, tuple[str | None, list[Observation]]]
) -> None:
    """Append observed values to each setting's history (creating the setting when no layer had it).

    An observed value comes last: it is what the process really received, so it is the effective value
    even over the parser's reading of the *predicted* argv. (``fold_settings`` of ``check`` does the same
    when :func:`analyze_pid`'s result is folded after the parser's.)
    """
    by_name = {s.name: s for s in settings}
    for name, (flag, items) in observations.items():
        setting = by_name.get(name)
        if setting is None:
            setting = by_name[name] = Setting(name=name, flag=flag)
            settings.append(setting)
        setting.history.extend(items)
