"""``argtrace lint [PATH...]``: find the launch files under the paths, check each, one report.

A launch file is a shell script that starts an SGLang/vLLM server (``.sh``/``.bash``/``.sbatch``/``.slurm``
or a shell shebang; a SLURM batch script is one with ``#SBATCH`` lines), a docker compose file or a
Kubernetes manifest (rendered Helm output included: ``# Source:`` documents) whose text names a server or
an official image. Files named on the command line (what pre-commit passes) are checked even when no
server start is seen in them, if they are shell scripts or compose/Kubernetes manifests; any other file
given (a workflow's YAML, a Dockerfile) is listed as skipped.

Each file is checked as ``argtrace check FILE`` would, but without script arguments: ``$1``, ``$@`` and
``$#`` are unknown rather than empty, and instead of an info finding at every use the script gets one
``SH030`` naming its arguments, with the uses as evidence. ``--jobs N`` checks N files at a time in forked
processes (the analysis is CPU-bound Python); the report is the same as with one job.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from argtrace.model import Evidence, Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ARGS_UNKNOWN = "argtrace lint checks launch files without their arguments"
# Where launch files never are; hidden directories are skipped too.
SKIP_DIRS = frozenset({"node_modules", "venv", "__pycache__", "site-packages", "dist", "build"})
SHELL_SUFFIXES = (".sh", ".bash", ".sbatch", ".slurm")
YAML_SUFFIXES = (".yaml", ".yml")
# systemd service units (layers/transport/systemd.py), Podman quadlets (layers/transport/quadlet.py)
UNIT_SUFFIXES = (".service", ".container")


def _is_dockerfile_name(name: str) -> bool:
    """``Dockerfile``, ``Containerfile``, ``Dockerfile.cpu``, ``vllm.Dockerfile`` (lower-cased name)."""
    return (
        name in ("dockerfile", "containerfile")
        or name.startswith(("dockerfile.", "containerfile."))
        or (name.endswith((".dockerfile", ".containerfile")))
    )


MAX_CANDIDATE_BYTES = 8 * 1024 * 1024
_SERVER = re.compile(
    rb"sglang\.launch_server|\bsglang\s+serve\b|\bvllm\s+serve\b|vllm\.entrypoints|"
    rb"\bvllm/vllm-openai\b|\blmsysorg/sglang\b"
)
_FRAMEWORK_WORD = re.compile(rb"\b(?:vllm|sglang)\b")
_SHEBANG = re.compile(rb"^#![^\n]*\b(?:ba|z|k|da)?sh\b")
# $1..$9, ${1}, ${10}, $@, $*, $# (not $$ or \$1): what a script reads of its arguments.
_POSITIONAL_USE = re.compile(r"(?<![\\$])\$(?:\{(?:[1-9][0-9]*|[@*#])[^}]*\}|[1-9@*#])")


@dataclass(frozen=True)
class LaunchFile:
    """A file ``lint`` checks, with the kind of launch it holds (script, Slurm batch file, compose,
    Kubernetes, Helm, or named by the user)."""

    path: str
    # script, slurm, compose, kubernetes, helm, systemd, skypilot, dockerfile, quadlet, workflow, supervisor,
    # ecs, python, given
    kind: str


def launch_kind(path: Path, head: bytes) -> str | None:
    """What kind of launch file this is, or ``None`` (not one)."""
    if b"\x00" in head[:8192]:
        return None
    name = path.name.lower()
    if name.endswith((".py", ".pyw", ".ipynb")):
        # a Python launcher (layers/transport/python_launch.py): an argv list or `LLM(...)` names the
        # framework without the command line's spelling
        return "python" if _FRAMEWORK_WORD.search(head) else None
    if not _SERVER.search(head):
        return None
    from argtrace.layers.transport.runners import runner_kind, runner_refusal

    if runner_refusal(path.name, head) is not None:
        # an Ansible play, a justfile, a Taskfile: listed, and `check` says why it does not read it
        return "refused"
    if (runner := runner_kind(path.name, head)) is not None:
        return runner  # a Procfile's processes, an Apptainer definition's runscript
    if name.endswith(YAML_SUFFIXES):
        from argtrace.layers.transport import manifest_kind

        kind = manifest_kind(head)
        if kind == "kubernetes" and b"# Source: " in head:
            return "helm"
        return kind
    if name.endswith(UNIT_SUFFIXES) or _is_dockerfile_name(name):
        from argtrace.layers.transport import manifest_kind

        kind = manifest_kind(head)
        return kind if kind in ("systemd", "quadlet", "dockerfile") else None
    if name.endswith((".conf", ".ini", ".json")):
        # Supervisor configurations (layers/transport/supervisor.py); Kubernetes objects and compose files
        # written as JSON (`kubectl get ... -o json`), ECS task definitions
        from argtrace.layers.transport import manifest_kind

        kind = manifest_kind(head)
        return kind if kind in ("supervisor", "kubernetes", "compose", "ecs") else None
    if name.endswith(SHELL_SUFFIXES) or _SHEBANG.match(head):
        return "slurm" if re.search(rb"(?m)^#SBATCH\s", head) else "script"
    return None


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


def find_launch_files(paths: Sequence[str]) -> list[LaunchFile]:
    """The launch files under ``paths`` in a stable order; files named directly are always included."""
    from argtrace.model import UsageError

    out: list[LaunchFile] = []
    seen: set[str] = set()
    for given in paths or ["."]:
        root = Path(given)
        if root.is_dir():
            for path in _walk(root):
                kind = _candidate(path)
                if kind is not None:
                    _add(out, seen, LaunchFile(_shown(path), kind))
        elif root.exists():
            kind = _candidate(root) if root.is_file() else None
            _add(out, seen, LaunchFile(given, kind or _given_kind(root)))
        else:
            raise UsageError(f"{given}: no such file or directory")
    return out


def _given_kind(path: Path) -> str:
    """A file named on the command line that starts no server we can see: still checked when it is a shell
    script (it may start one through a wrapper) or a launch file argtrace reads (a compose/Kubernetes
    manifest, a unit or quadlet, a Dockerfile, a GitHub Actions workflow); any other file is ``skipped``:
    read as a script it would only give false alarms."""
    try:
        if not path.is_file():
            return "given"  # a FIFO or device: check refuses it with its own message
        with path.open("rb") as fh:
            head = fh.read(1024 * 1024)
    except OSError:
        return "given"
    name = path.name.lower()
    if name.endswith((*YAML_SUFFIXES, *UNIT_SUFFIXES)) or _is_dockerfile_name(name):
        from argtrace.layers.transport import manifest_kind

        return manifest_kind(head) or "skipped"
    if name.endswith(SHELL_SUFFIXES) or _SHEBANG.match(head):
        return "given"
    return "skipped"


def _shown(path: Path) -> str:
    text = str(path)
    return text[2:] if text.startswith("./") else text


def _add(out: list[LaunchFile], seen: set[str], item: LaunchFile) -> None:
    key = os.path.normpath(os.path.abspath(item.path))
    if key not in seen:
        seen.add(key)
        out.append(item)


def _candidate(path: Path) -> str | None:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_CANDIDATE_BYTES:
            return None
        with path.open("rb") as fh:
            head = fh.read(1024 * 1024)
    except OSError:
        return None
    return launch_kind(path, head)


def positional_uses(text: str) -> list[str]:
    """The positional parameters a script's code reads (comment lines aside), in order of first use."""
    found: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for m in _POSITIONAL_USE.finditer(line):
            name = m.group(0)
            if name.startswith("${"):
                inner = re.match(r"\$\{([0-9]+|[@*#])", name)
                name = f"${inner.group(1)}" if inner else name
            if name not in found:
                found.append(name)
    return found


def fold_unknown_arguments(file: LaunchFile, findings: list[Finding]) -> list[Finding]:
    """One SH030 instead of a finding at every use of an argument lint does not have."""
    from argtrace.rules.lint import SH030

    uses = [f for f in findings if ARGS_UNKNOWN in f.message]
    kept = [f for f in findings if ARGS_UNKNOWN not in f.message]
    if file.kind not in ("script", "slurm", "given"):
        return findings
    try:
        text = Path(file.path).read_bytes()[:MAX_CANDIDATE_BYTES].decode("utf-8", "replace")
    except OSError:
        text = ""
    names = positional_uses(text)
    if not uses and not names:
        return findings
    shown = ", ".join(f"`{n}`" for n in names) or "its arguments"
    first = next((f.at for f in uses if f.at), None) or f"{file.path}:1"
    evidence = tuple(Evidence("shell", f.at, f"{f.code}: {f.message}") for f in uses[:20])
    places: list[str] = []
    for f in uses:
        where = (f.at or "").removeprefix(f"{file.path}:")
        if where and where not in places:
            places.append(where)
    used = f" (the server gets them at {', '.join(places[:5])}{', ...' if len(places) > 5 else ''})"
    message = (
        f"{file.path} reads {shown}; {ARGS_UNKNOWN}, so every use is unknown, not empty"
        f"{used if places else ''}: `argtrace check {file.path} ARGS...` checks real values"
    )
    return [SH030.finding(message, at=first, evidence=evidence), *kept]


@dataclass(frozen=True)
class FileResult:
    """One launch file's outcome under ``lint``: its report, or the error that kept it from being checked,
    and the secrets to redact."""

    file: LaunchFile
    report: Report | None
    error: str | None
    secrets: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # texts with continuation lines, for secrets wrapped over them


def check_file(file: LaunchFile, options: Any) -> FileResult:
    """``argtrace check FILE`` without arguments; a usage error (unreadable, too big) is kept as text."""
    from argtrace.check import run_check
    from argtrace.model import UsageError
    from argtrace.redact import run_redactor

    try:
        report = run_check(replace(options, script=file.path))
    except UsageError as exc:
        return FileResult(file, None, str(exc))
    report.findings = fold_unknown_arguments(file, report.findings)
    from argtrace.render.json import to_dict
    from argtrace.render.redaction import learn_report_secrets

    # The merged report holds no server of this file, so the secrets its own report names (an --api-key
    # value) are learned here: a finding's evidence may quote a line with a piece of one (probe of session
    # 15: the tail of a value wrapped over a backslash-newline). A forked worker hands them back.
    learn_report_secrets(to_dict(report))
    run = run_redactor()
    return FileResult(file, report, None, tuple(run.known), tuple(run.sources))


def check_files(files: Sequence[LaunchFile], options: Any, jobs: int) -> list[FileResult]:
    skipped = {f.path for f in files if f.kind == "skipped"}
    checked = [f for f in files if f.kind != "skipped"]
    done = {r.file.path: r for r in _check_files(checked, options, jobs)}
    return [FileResult(f, None, None) if f.path in skipped else done[f.path] for f in files]


def _check_files(files: Sequence[LaunchFile], options: Any, jobs: int) -> list[FileResult]:
    if jobs <= 1 or len(files) <= 1:
        return [check_file(f, options) for f in files]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from argtrace.redact import run_redactor

    # The first file is checked here before forking: the workers inherit the modules it imported and the
    # schemas it loaded instead of each loading them again.
    results = [check_file(files[0], options)]
    rest = files[1:]
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(rest)), mp_context=multiprocessing.get_context("fork")
    ) as pool:
        results.extend(pool.map(check_file, rest, [options] * len(rest)))
    for result in results:
        run_redactor().learn_all(result.secrets)
        for source in result.sources:  # before session 15's probe: the tail of a wrapped secret was shown
            run_redactor().learn_source(source)
    return results


def merge(results: Iterable[FileResult]) -> Report:
    """One report: every file's findings (``finding_inputs`` says whose), the files checked and how."""
    report = Report(command="lint")
    inputs: list[str] = []
    owners: list[int] = []
    files: list[dict[str, Any]] = []
    for index, result in enumerate(results):
        inputs.append(result.file.path)
        entry: dict[str, Any] = {"path": result.file.path, "kind": result.file.kind}
        if result.file.kind == "skipped":
            report.notes.append(f"{result.file.path}: skipped: not a shell script, compose file or manifest")
        elif result.report is None:
            entry["error"] = result.error
            report.notes.append(f"{result.file.path}: not checked: {result.error}")
        else:
            entry["findings"] = len(result.report.findings)
            entry["servers"] = len(result.report.servers)
            entry["framework"] = result.report.framework.name
            report.findings.extend(result.report.findings)
            owners.extend([index] * len(result.report.findings))
        files.append(entry)
    report.sections["inputs"] = inputs
    report.sections["finding_inputs"] = owners
    report.sections["lint"] = {"files": files}
    checked = sum(1 for f in files if "error" not in f and f["kind"] != "skipped")
    report.notes.append(
        f"{checked} launch file(s) checked" + (f" of {len(files)}" if checked != len(files) else "")
    )
    return report
