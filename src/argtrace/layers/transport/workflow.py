"""``argtrace check .github/workflows/serve.yml``: a GitHub Actions workflow (or composite action) as the
launch carrier.

This module owns reading the ``run:`` steps of a workflow's jobs (a composite action's ``runs.steps``) into
the scripts the runner executes and the environment each gets, following GitHub's "Workflow syntax for
GitHub Actions" (https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax):

* ``env:`` at the workflow, job and step level: "When more than one environment variable is defined with
  the same name, GitHub uses the most specific variable" (step over job over workflow);
* ``shell:`` (the step's, else ``defaults.run.shell`` of the job, then of the workflow): ``bash`` and
  ``sh`` run the script (``bash -e {0}`` when none is given on Linux, ``bash --noprofile --norc -eo
  pipefail {0}`` for ``shell: bash``); another shell (``pwsh``, ``python``, ``cmd``) is no shell script
  and its step is not read;
* expressions ``${{ <expression> }}`` (GitHub docs, "Expressions") are evaluated by the runner and their
  text put in place of the expression before the shell reads the script: ``${{ env.NAME }}`` is the value
  the step's ``env:`` gives NAME when it is known; every other expression (secrets, matrix, inputs, the
  ``github`` context, functions) is left unresolved, read as an unknown value, and said (TP087);
* a name a step writes to ``$GITHUB_ENV`` (``echo "NAME=value" >> "$GITHUB_ENV"``) is set for the later
  steps of the job, with a value not read here (unknown).

Each step's script goes through the shell layer (and the transport layer, for a ``docker run`` in it) with
its line numbers those of the workflow file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.transport.skypilot import FollowScript

_TOP_KEY = re.compile(r"""(?m)^(["']?[A-Za-z_][\w-]*["']?)\s*:""")
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)
_ENV_EXPRESSION = re.compile(r"^env\.([A-Za-z_][A-Za-z0-9_]*)$")
_GITHUB_ENV_WRITE = re.compile(r"""([A-Za-z_][A-Za-z0-9_]*)=[^\n]*>>\s*["']?\$\{?GITHUB_ENV\b""")
# what the runner sets for every step (GitHub docs, "Variables reference", default environment variables);
# their values are the run's
_RUNNER = (
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_WORKSPACE",
    "GITHUB_ENV",
    "GITHUB_OUTPUT",
    "GITHUB_PATH",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_SHA",
    "GITHUB_REF",
    "GITHUB_REPOSITORY",
    "GITHUB_RUN_ID",
    "RUNNER_TEMP",
    "RUNNER_OS",
    "HOME",
    "PATH",
)


def is_workflow(data: bytes) -> bool:
    """A GitHub Actions workflow (top-level ``on:`` and ``jobs:``) or composite action (``runs:`` with
    ``using: composite``)."""
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return False
    text = head.decode("utf-8", "replace")
    keys = {k.strip("\"'") for k in _TOP_KEY.findall(text)}
    if "jobs" in keys and keys & {"on", "true"}:
        return True
    return "runs" in keys and re.search(r"(?m)^\s+using:\s*[\"']?composite", text) is not None


def analyze_workflow(
    source: ScriptSource, *, given: Mapping[str, str], follow: FollowScript | None = None
) -> TransportResult:
    """The server starts of a workflow's ``run:`` steps. ``given``: ``--env``, standing for values of the
    run (a secret, a matrix value) under the names the workflow's ``env:`` uses."""
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes

    label = source.label
    documents = _load_yaml_nodes(source.data, label)
    root = documents.nodes[0] if documents.nodes else None
    result = TransportResult()
    top_env = _env_of(root)
    top_shell = _scalar(_get(_get(_get(root, "defaults"), "run"), "shell"))
    jobs: list[tuple[str, Any]] = list(_items(_get(root, "jobs")))
    runs = _get(root, "runs")
    if runs is not None:
        jobs.append(("(composite action)", runs))
    for job_id, job in jobs:
        job_env = {**top_env, **_env_of(job)}
        job_shell = _scalar(_get(_get(_get(job, "defaults"), "run"), "shell")) or top_shell
        written: dict[str, str] = {}  # names earlier steps wrote to $GITHUB_ENV -> where
        for number, step in enumerate(_seq(_get(job, "steps")) or []):
            node = _get(step, "run")
            script = _scalar(node)
            if node is None or not script:
                continue
            shell = _scalar(_get(step, "shell")) or job_shell or "bash"
            step_env = {**job_env, **_env_of(step)}
            hop: dict[str, Any] = {
                "at": _line(label, node),
                "via": "github actions",
                "job": job_id,
                "step": _scalar(_get(step, "name")) or _scalar(_get(step, "id")) or number + 1,
                "shell": shell,
                "environment": sorted(step_env),
            }
            result.hops.append(hop)
            if shell.split()[0].rsplit("/", 1)[-1] not in ("bash", "sh"):
                hop["note"] = f"shell {shell}: not a shell script, not read"
                continue
            first_line = node.start_mark.line + (2 if node.style in ("|", ">") else 1)
            _step(label, script, first_line, step_env, written, given, hop, result, follow)
            for m in _GITHUB_ENV_WRITE.finditer(script):
                written.setdefault(m.group(1), _line(label, node))
    return result


def _env_of(node: Any) -> dict[str, tuple[str, int]]:
    """A mapping's ``env:`` as name -> (value as written, its line)."""
    out: dict[str, tuple[str, int]] = {}
    for name, value in _items(_get(node, "env")):
        out[name] = (_scalar(value) or "", value.start_mark.line + 1)
    return out


def _step(
    label: str,
    script: str,
    first_line: int,
    step_env: Mapping[str, tuple[str, int]],
    written: Mapping[str, str],
    given: Mapping[str, str],
    hop: dict[str, Any],
    result: TransportResult,
    follow: FollowScript | None,
) -> None:
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules import launchfiles as R

    env: dict[str, str] = {}
    unknown: dict[str, str] = {name: "set by the GitHub Actions runner" for name in _RUNNER}
    unknown.update(
        {name: f"written to $GITHUB_ENV by an earlier step ({at})" for name, at in written.items()}
    )
    expressions: list[str] = []
    for name, (value, line) in step_env.items():
        if name in given:
            env[name] = given[name]
            continue
        found = [m.group(1) for m in _EXPRESSION.finditer(value)]
        resolved = _resolve(value, env)
        if resolved is None:
            unknown[name] = f"env: {name}: {value} ({label}:{line}), filled in by the runner"
            expressions.extend(e for e in found if not _ENV_EXPRESSION.match(e))
        else:
            env[name] = resolved
            unknown.pop(name, None)
    result.keep_secrets(env)
    placeholders: dict[str, str] = {}

    def replace(m: re.Match[str]) -> str:
        expression = m.group(1)
        env_ref = _ENV_EXPRESSION.match(expression)
        if env_ref is not None and env_ref.group(1) in env:
            return env[env_ref.group(1)]
        name = placeholders.setdefault(expression, f"GHA_EXPRESSION_{len(placeholders) + 1}")
        unknown[name] = (
            f"the expression `${{{{ {expression} }}}}`, filled in by the runner before the step runs"
        )
        return "${" + name + "}"

    text = _EXPRESSION.sub(replace, script)
    source = ScriptSource(
        label=label, data=("\n" * (first_line - 1) + text).encode("utf-8", "surrogateescape"), path=None
    )
    shell = analyze_script(source, [], env, arg0="bash", run_shellcheck=False, cwd=None, unknown_env=unknown)
    result.commands.extend(shell.commands)
    result.findings.extend(f for f in shell.findings if f.code != "SH019")
    servers = list(shell.servers)
    if follow is not None:
        carried = follow(source, shell, args=[], env=env)
        result.findings.extend(carried.findings)
        result.hops.extend(carried.hops)
        servers.extend(carried.servers)
    result.servers.extend(servers)
    used = list(dict.fromkeys([*placeholders, *expressions]))
    if servers and used:
        hop["unresolved"] = used
        shown = ", ".join(f"`${{{{ {e} }}}}`" for e in used[:6]) + (" ..." if len(used) > 6 else "")
        result.findings.append(
            R.TP087.finding(
                f"{shown}: GitHub Actions fills {'this' if len(used) == 1 else 'these'} in when the workflow "
                "runs; argtrace reads the value as unknown, and what the server makes of the words built "
                "from it is not checked",
                at=hop["at"],
                basis="assumed",
            )
        )


def _resolve(value: str, env: Mapping[str, str]) -> str | None:
    """An ``env:`` value with its ``${{ env.NAME }}`` expressions filled in from the values before it; None
    when it holds another expression (its value is the run's)."""
    out = []
    last = 0
    for m in _EXPRESSION.finditer(value):
        ref = _ENV_EXPRESSION.match(m.group(1))
        if ref is None or ref.group(1) not in env:
            return None
        out.append(value[last : m.start()])
        out.append(env[ref.group(1)])
        last = m.end()
    out.append(value[last:])
    return "".join(out)
