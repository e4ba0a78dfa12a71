"""A shell's own error pasted to ``why``: which shell printed it, what its words mean, what to run instead.

``launch.sh: line 12: --hf_overrides: command not found`` is bash saying it ran a line as a command of its
own; no framework printed it, yet it shares a few words ("not found") with framework sites, and one of them
ranked first as if it were where the launch failed (vllm#14192, docs/real_cases.md's 9th ``why`` batch).
The message forms below were recorded from the real shells (GNU bash 5.2.15, dash 0.5.12 as Debian's
``/bin/sh``) on small scripts; tests/test_why_shell.py runs the shells installed to check every form
still parses. zsh was not installed where they were recorded: its forms are not known here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class ShellForm:
    """One message form of a shell: ``kind`` (what went wrong), the shell, the pattern (``word``: the
    command word or token it names, ``line``: the script's line when the form has one)."""

    kind: str
    shell: str
    pattern: str


SHELL_FORMS = (
    # bash: `x.sh: line 2: --port: command not found`, `bash: line 2: --port: command not found` (-c)
    ShellForm("not found", "bash", r"(?:^|\s)\S*?: line (?P<line>\d+): (?P<word>\S.*?): command not found"),
    # bash run interactively: `bash: vllm: command not found`
    ShellForm("not found", "bash", r"(?:^|\s)bash: (?P<word>\S.*?): command not found"),
    # bash's words without the script and line before them (what a report quotes): `--port: command not found`
    ShellForm("not found", "bash", r"(?:^|\s)(?P<word>[^\s`'\"(]\S*): command not found\b"),
    # dash (/bin/sh on Debian): `x.sh: 2: --port: not found`
    ShellForm("not found", "dash (sh)", r"(?:^|\s)\S*?: (?P<line>\d+): (?P<word>\S.*?): not found"),
    # dash's words without the script and line before them, for a flag run as a command (what a report
    # quotes: vllm recipes PR#167's `--mm_processor_cache_type: not found`); only a flag word, since
    # "NAME: not found" alone is common wording
    ShellForm("not found", "dash (sh)", r"(?:^|\s)(?P<word>-[^\s`'\"(:]+): not found\b"),
    # bash: `bash: line 1: /no/such/vllm: No such file or directory`
    ShellForm(
        "no such file",
        "bash",
        r"(?:^|\s)\S*?: line (?P<line>\d+): (?P<word>\S.*?): No such file or directory",
    ),
    # dash: `dash: 0: cannot open ./nope.sh: No such file`
    ShellForm(
        "no such file", "dash (sh)", r"(?:^|\s)\S*?: (?P<line>\d+): cannot open (?P<word>\S.*?): No such file"
    ),
    # bash: ``x.sh: line 1: unexpected EOF while looking for matching `"'``
    ShellForm(
        "unterminated",
        "bash",
        r"(?:^|\s)\S*?: line (?P<line>\d+): unexpected EOF while looking for matching `(?P<word>.)'",
    ),
    # dash: `x.sh: 3: Syntax error: Unterminated quoted string`
    ShellForm(
        "unterminated", "dash (sh)", r"(?:^|\s)\S*?: (?P<line>\d+): Syntax error: Unterminated quoted string"
    ),
    # bash: ``x.sh: line 1: syntax error near unexpected token `)'``
    ShellForm(
        "syntax",
        "bash",
        r"(?:^|\s)\S*?: line (?P<line>\d+): syntax error near unexpected token `(?P<word>[^']*)'",
    ),
    # dash: `x.sh: 1: Syntax error: ")" unexpected`
    ShellForm(
        "syntax", "dash (sh)", r'(?:^|\s)\S*?: (?P<line>\d+): Syntax error: "(?P<word>[^"]*)" unexpected'
    ),
)

CHECK = "argtrace check SCRIPT"  # reads the script as the shell does: a broken continuation is SH004

_MEANING = {
    "not found": "the shell ran {word!r} as a command and found no such program",
    "no such file": "the shell was given a path to run or read that does not exist: {word}",
    "unterminated": "a quote ({word}) opened in the script is never closed: the shell read to the end of the "
    "file looking for it",
    "syntax": "the shell met {word!r} where its grammar allows no such token",
}


def shell_error(text: str) -> dict[str, Any] | None:
    """The shell message the text holds, with what it means and the fix; None when it holds none. Of
    several, a flag run as a command (the cause of the lines after it) comes first, then the first in the
    text."""
    seen = [(m.start(), form, m) for form in SHELL_FORMS for m in re.finditer(form.pattern, text, re.M)]
    flags = [s for s in seen if s[1].kind == "not found" and s[2].group("word").strip().startswith("-")]
    for _, form, m in sorted(flags or seen, key=lambda s: s[0])[:1]:
        found = m.groupdict()
        word = (found.get("word") or "").strip()
        out: dict[str, Any] = {
            "shell": form.shell,
            "kind": form.kind,
            "evidence": m.group(0).strip(),
            "line": int(found["line"]) if found.get("line") else None,
            "word": word or None,
            "flag": None,
            "meaning": _MEANING[form.kind].format(word=word or '"'),
            "fix": f"run `{CHECK}` on the launch script: it reads the script as the shell does and says "
            "where it broke (`argtrace rules` lists the codes)",
        }
        if form.kind == "not found" and word.startswith("-"):
            at = f"line {out['line']}" if out["line"] else "that line"
            out["flag"] = word
            out["meaning"] = (
                f"the shell ran {at}, which starts with the flag {word}, as a command of its own: the line "
                "before it ended the command instead of continuing it (a missing `\\` at its end, a space "
                "after the `\\`, a comment line inside the continuation, or CRLF line endings), so "
                f"{word} and the flags after it never reached the server"
            )
            out["fix"] = (
                f"end the line before {word} with a `\\` and nothing after it; `{CHECK}` shows where the "
                "continuation broke (SH004 a missing `\\`, SH003 a space after it, SH002 CRLF; `argtrace "
                "rules` lists the codes)"
            )
        return out
    return None


def origin_of_shell(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for a shell's message: the shell, by its wording."""
    found = shell_error(text)
    if found is None:
        return None
    return {
        "origin": f"the shell ({found['shell']}): {found['kind']}",
        "basis": "wording",
        "evidence": found["evidence"],
        "source": "recorded from GNU bash 5.2.15 and dash 0.5.12 (tests/test_why_shell.py runs them)",
    }


def drop_word_matches(groups: list[dict[str, Any]], strong: int) -> list[dict[str, Any]]:
    """A shell's message is no framework's: a site sharing fewer than ``strong`` literal characters with
    it (common words) is no explanation, so it is not ranked."""
    return [g for g in groups if int(g.get("specificity") or 0) >= strong]


def render_shell(section: Mapping[str, Any]) -> list[str]:
    found = section.get("shell")
    if not found:
        return []
    lines = [f"shell: {found['shell']} printed this ({found['kind']}): {found['meaning']}"]
    lines.append(f"  fix: {found['fix']}")
    return lines
