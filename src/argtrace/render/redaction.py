"""Secrets never leave redacted form: one pass over the canonical report dict before any output.

Layers keep raw values (they need them to compare equal secrets, and ``--show-secrets`` exists); this pass
is :class:`argtrace.redact.Redactor` seeded with what the run registered (argtrace's own command line, the
caller's environment, values layers read by name from processes, logs and payloads), then taught every
value the report's own names mark secret (environment, secret flags in any argv, secret settings, secret
payload fields at any depth, command-line strings), and finally masking every string in the report.
"""

from __future__ import annotations

from argtrace.redact import Redactor, run_redactor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def report_redactor(data: Any) -> Redactor:
    """The run's secrets plus every secret the report itself names."""
    run = run_redactor()
    redactor = Redactor(run.known)
    for source in run.sources:
        redactor.learn_source(source)
    redactor.learn_data(data)
    return redactor


def redact_report_dict(data: dict[str, Any]) -> dict[str, Any]:
    redactor = report_redactor(data)
    redacted = redactor.data(data)
    # What the report revealed is known for the rest of the run too (stderr messages after the output).
    run_redactor().learn_all(redactor.known)
    assert isinstance(redacted, dict)
    return redacted


def learn_report_secrets(data: dict[str, Any]) -> None:
    """Teach the run every secret the report names, for outputs that print text the report does not hold
    (``fix``'s diff, which shows the script's own lines: a line with only the tail of a wrapped ``--api-key``
    value, or a value whose name is on another line, is masked only by a known value)."""
    known = report_redactor(data).known
    # a value known with its quotes (compose's `- X="v"`) is known bare too: masking the bare value keeps
    # the quotes readable in the diff, as the report shows them
    run_redactor().learn_all(
        s for s in known if not (len(s) > 2 and s[0] == s[-1] and s[0] in "'\"" and s[1:-1] in known)
    )
