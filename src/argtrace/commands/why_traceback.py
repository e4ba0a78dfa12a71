"""``why`` on a traceback that says where it failed but not what: cut before its exception line, or ending in
an exception without a message (a bare ``assert``).

The message index holds the sites that print words; a bare ``assert cond`` prints none (``AssertionError``
alone), and a traceback pasted up to its last frame has no message at all. Users paste both: vllm#43626 ends
in ``assert new_spec.page_size_bytes == max_page_size`` / ``AssertionError``; GLM-V#204 and vllm#34403 stop
inside the frames. ``why`` matched nothing (or only the line that reported the failure, "EngineCore failed to
start.", whose condition ``engine_core is None`` it then offered as the fix). What the text does say is the
frames: Python prints each as ``File "PATH", line N, in FUNCTION`` and, since 3.11, the source line under it.
The deepest frame inside a framework's package is where it failed (or, for a cut paste, the last place known
to be on the way): its package-relative file, function, line in the user's release and the statement shown.
For a bare assert, that statement is the condition that was false; the names it reads that are the server's
own arguments (a dest of the bundled schemas, ``self.tp_size``) are settings, the rest are the code's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# `File "PATH", line N, in FUNC` (the line number may be left out by a hand-trimmed paste: vllm PR#47635)
_FRAME = re.compile(r'\bFile "(?P<path>[^"]{1,500})"(?:, line (?P<line>\d+))?, in (?P<func>[\w.<>]{1,200})')
# the exception line: a class name (qualified or not), optionally a message after ": "
_EXCEPTION = re.compile(
    r"^(?P<cls>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt))(?:\s*:\s*(?P<msg>.*))?$"
)
_HEADER = "Traceback (most recent call last):"
_CARETS = re.compile(r"^[\^~\s]+$")
_PACKAGE = re.compile(r"(?:^|/)(?P<rel>(?P<fw>vllm|sglang)/[\w./-]+\.py)$")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}
_ATTR = re.compile(r"\b(?:self|server_args|args|config|[a-z_]+_config)\.(?P<name>[a-z_][a-z0-9_]*)\b")


def _lines(text: str) -> list[str]:
    from argtrace.layers.log.analyze import split_prefix

    out = []
    for raw in text.splitlines():
        line = raw.strip()
        for _ in range(4):  # (proc pid) ERROR date [file:line] ...: the log's prefixes before the frame
            body = split_prefix(line).body.strip()
            body = re.sub(r"^(?:\(\w+(?: [\w]+=[\w.]+)*\)\s*|E\s{2,})", "", body).strip()
            if body == line:
                break
            line = body
        out.append(line)
    return out


def _relative(path: str) -> tuple[str, str] | None:
    """``(framework, package-relative file)`` of a frame's path inside SGLang or vLLM, else None. The last
    ``vllm/`` or ``sglang/`` of the path is the package (a checkout's ``vllm-main/vllm/vllm/x.py``)."""
    cut = max(path.rfind("/vllm/"), path.rfind("/sglang/"))
    rel = path[cut + 1 :] if cut >= 0 else path
    m = _PACKAGE.search(rel)
    return (m.group("fw"), m.group("rel")) if m else None


def read_traceback(text: str) -> dict[str, Any] | None:
    """The deepest framework frame of a traceback in ``text`` that ends without a message: ``state``
    (``cut``: no exception line after the frames; ``bare``: an exception class alone), ``framework``,
    ``file``, ``function``, ``line`` (None when not printed), ``source`` (the statement shown), ``exception``;
    None when the text has no such frame or its traceback ends in a message (the index matches that)."""
    lines = _lines(text)
    frames: list[dict[str, Any]] = []
    exception: tuple[str, str] | None = None
    said = False  # an exception line with a message anywhere: the text's cause has words
    for n, line in enumerate(lines):
        seen = _FRAME.search(line)
        if seen:
            source = next(
                (s for s in lines[n + 1 : n + 3] if s and not _CARETS.match(s) and not _FRAME.search(s)),
                None,
            )
            frames.append({**seen.groupdict(), "source": source, "at": n})
            exception = None  # an exception line counts only after the last frame
            continue
        found = _EXCEPTION.match(line)
        if found and frames:
            exception = (found.group("cls"), (found.group("msg") or "").strip())
            said = said or bool(exception[1])
    own = [(f, place) for f in frames if (place := _relative(f["path"])) is not None]
    if not own:
        return None
    if exception is not None and exception[1]:
        return None  # a message: the sites that print it say more than a frame
    if exception is None and said:
        return None  # a second process's traceback cut after an error with words (vllm#41027's API server)
    frame, (framework, file) = own[-1]
    source = frame["source"]
    if source is not None and (_EXCEPTION.match(source) or source == _HEADER):
        source = None
    state = "bare" if exception is not None else "cut"
    return {
        "state": state,
        "framework": framework,
        "file": file,
        "function": frame["func"],
        "line": int(frame["line"]) if frame["line"] else None,
        "source": source,
        "exception": exception[0] if exception else None,
        "deepest": frame is frames[-1],
    }


def _settings(framework: str, source: str | None) -> list[dict[str, str]]:
    """The server arguments an assert's condition reads (``self.tp_size`` -> ``--tp-size``): attribute names
    that are a dest of the newest bundled schema."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    if not source or not source.startswith("assert "):
        return []
    names = list(dict.fromkeys(m.group("name") for m in _ATTR.finditer(source)))
    if not names:
        return []
    schema = load_schema(framework, bundled_versions(framework, include_user=False)[-1])
    out = []
    for option in schema.options:
        long = [o for o in option.option_strings if o.startswith("--")]
        if long and option.dest in names:
            out.append({"name": option.dest, "flag": long[0]})
    return out


def explain_traceback(text: str) -> dict[str, Any] | None:
    """``read_traceback`` with ``meaning``, ``fix`` and ``settings``."""
    found = read_traceback(text)
    if found is None:
        return None
    name = _NAME[found["framework"]]
    where = f"{name}'s {found['file']}, in {found['function']}" + (
        f" (line {found['line']} of the release that ran)" if found["line"] else ""
    )
    shown = f": `{found['source']}`" if found["source"] else ""
    settings = _settings(found["framework"], found["source"])
    flags = ", ".join(s["flag"] for s in settings)
    if found["state"] == "bare":
        if str(found["source"] or "").startswith("assert "):
            condition = found["source"][len("assert ") :]
            meaning = (
                f"a bare {found['exception']} (an assert without a message, so no indexed site prints it) "
                f"raised in {where}: its condition `{condition}` was false"
            )
            fix = (
                f"change what makes `{condition}` false: it reads {flags}"
                if flags
                else f"its operands are the code's own values, not server arguments: the launch's settings "
                f"that lead to {found['function']} decide them (which, the traceback does not say)"
            )
        else:
            meaning = (
                f"a bare {found['exception']} (no message, so no indexed site prints it) raised in "
                f"{where}{shown}"
            )
            fix = "the traceback names no condition: the launch's settings that lead to this call decide it"
    else:
        last = "its last frame" if found["deepest"] else f"its deepest {name} frame"
        meaning = (
            f"the pasted traceback stops before its exception line; {last} is {where}{shown}: the error was "
            "raised there or in what it called"
        )
        fix = "paste the lines after it: the exception line names the error, and `why` its site and settings"
    return {**found, "settings": settings, "meaning": meaning, "fix": fix}


# the sentence a reporting site's fix gets when the text holds the traceback it reports
def reported_traceback(found: Mapping[str, Any]) -> str:
    return f"the traceback it reports: {found['meaning']}"


def render_traceback(section: Mapping[str, Any]) -> list[str]:
    found = section.get("traceback")
    if not found:
        return []
    return [f"traceback: {found['meaning']}", f"  fix: {found['fix']}"]


def reporting(group: Mapping[str, Any]) -> bool:
    """A site that only reports an error another one raised: its fix says so (why_wrapped), or it logs the
    exception its ``except`` handler caught ("EngineCore failed to start.", logger.exception)."""
    fix = str(group.get("fix") or "")
    if fix.startswith(("this only reports another error", "this reports ")):
        return True
    caught = any(str(c).startswith("except") for c in group.get("conditions") or ())
    return caught and group.get("kind") == "log" and group.get("level") == "exception"


def consequences_last(groups: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sites that only report another error go after a site that is not one (a warning or an error of the
    text's own): the report of a failure is not its cause (LMCache PR#1436: "Hybrid KV cache manager is
    disabled for this hybrid model" above "EngineCore failed to start.")."""
    from argtrace.commands.why_confidence import STRONG_CHARS

    if not groups or not reporting(groups[0]):
        return list(groups)
    reports = [g for g in groups if reporting(g)]
    said = {g.get("message") for g in reports}
    # the same words raised elsewhere ("WorkerProc failed to start." as a RuntimeError) report it too
    reports += [g for g in groups if g not in reports and g.get("message") in said]
    own = [g for g in groups if g not in reports]
    # only a site the text holds whole moves above the report: a few shared words are no cause
    whole = any(int(g.get("specificity") or 0) >= STRONG_CHARS and g.get("how") == "full" for g in own)
    return own + reports if whole else list(groups)
