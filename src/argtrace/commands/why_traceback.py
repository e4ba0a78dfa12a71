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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# `File "PATH", line N, in FUNC` (the line number may be left out by a hand-trimmed paste: vllm PR#47635)
_FRAME = re.compile(r'\bFile "(?P<path>[^"]{1,500})"(?:, line (?P<line>\d+))?, in (?P<func>[\w.<>]{1,200})')
# the same frame with its `File "` cut off by the paste (vllm#1581's title: `vllm/.../chatglm.py", line 53, in
# __init__`): only at the line's start, and only a package path, so prose is not read as a frame
_CUT_FRAME = re.compile(
    r'^(?P<path>[\w./-]{0,400}(?:vllm|sglang)/[\w./-]{1,400}\.py)", '
    r"line (?P<line>\d+), in (?P<func>[\w.<>]{1,200})"
)
# the exception line: a class name (qualified or not), optionally a message after ": " (Triton's
# OutOfResources is an exception class without the suffix: triton/runtime/errors.py)
_EXCEPTION = re.compile(
    r"^(?P<cls>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt)|OutOfResources))"
    r"(?:\s*:\s*(?P<msg>.*))?$"
)
_HEADER = "Traceback (most recent call last):"
_CARETS = re.compile(r"^[\^~\s]+$")
_PACKAGE = re.compile(r"(?:^|/)(?P<rel>(?P<fw>vllm|sglang)/[\w./-]+\.py)$")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}
# a message that sends the reader to another error printed before it ("Got fatal signal from worker processes,
# shutting down. See stack trace above for root cause issue.", "See root cause above."): a report, not a cause
_POINTS_ABOVE = re.compile(
    r"\bsee (?:the )?(?:stack ?trace|traceback|root cause|error|logs?)\b[^.]{0,40}\babove\b", re.I
)
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
        seen = _FRAME.search(line) or _CUT_FRAME.match(line)
        if seen:
            source = next(
                (
                    s
                    for s in lines[n + 1 : n + 3]
                    if s and not _CARETS.match(s) and not _FRAME.search(s) and not _CUT_FRAME.match(s)
                ),
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
    """``read_traceback`` with ``meaning``, ``fix`` and ``settings``; for a bare assert, the indexed site
    (``assert``: ``why_assert``). Without a frame, an ``assert COND`` the text quotes (state ``quoted``)."""
    from argtrace.resolver.assert_lookup import find_for_frame, find_quoted

    found = read_traceback(text)
    if found is None:
        site = find_quoted(text)
        if site is None:
            from argtrace.commands.why_quoted_message import find_quoted_message

            return find_quoted_message(text)  # an assert that prints a message, quoted by its statement
        return _explain_quoted(site)
    if found["state"] == "bare":
        site = find_for_frame(
            found["framework"], found["file"], found["line"], found["function"], found["source"]
        )
        if site is not None:
            return _explain_indexed(found, site)
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
                else f"its operands are the code's own values, not server arguments: {_INVARIANT}; the "
                f"launch's settings that lead to {found['function']} decide them (which, the traceback does "
                "not say)"
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
        raises = _cut_raise(found) if found["deepest"] else None
        if raises is not None:
            # the paste stops right after a ``raise X(`` the message index knows: what it would have printed
            meaning, fix = raises
            return {**found, "settings": settings, "meaning": meaning, "fix": fix, "first": True}
        asserts = _cut_assert(found) if found["deepest"] else None
        if asserts is not None:
            # the paste stops at a condition line of an assert the message index knows
            meaning, fix, settings = asserts
            return {**found, "settings": settings, "meaning": meaning, "fix": fix, "first": True}
    return {**found, "settings": settings, "meaning": meaning, "fix": fix}


def _cut_raise(found: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(meaning, fix)`` of a paste cut right after a ``raise X(`` statement whose message the index holds
    (``resolver/raise_lookup.py``): the message is the cause; a log signature of it gives the fix."""
    from argtrace.layers.log.signatures import match_line
    from argtrace.resolver.raise_lookup import raised_at

    site = raised_at(found["file"], found["function"], found["source"])
    if site is None:
        return None
    words = " ".join(site.message.split())
    meaning = (
        f"the pasted traceback stops after the statement `{found['source']}` of {_NAME[site.framework]}'s "
        f"{site.file}, in {found['function']}: that statement raises {site.exception}: '{words[:200]}' (the "
        "message index's raise site; the exception line itself is not in the paste)"
    )
    matched = match_line(f"{site.exception}: {site.message}", framework=site.framework, stage=None)
    if matched is not None and not matched[0].wrapper:
        sig = matched[0]
        return meaning, f"{sig.fix} (log signature {sig.id}: {sig.meaning})"
    return meaning, f"`why` on that message shows its condition and settings: {words[:80]}"


def _cut_assert(found: Mapping[str, Any]) -> tuple[str, str, list[dict[str, str]]] | None:
    """``(meaning, fix, settings)`` of a paste cut at a condition line of an indexed assert with a message:
    its message, and the server arguments its conditions read (``self.page_size`` -> ``--page-size``)."""
    from argtrace.resolver.raise_lookup import asserted_at

    site = asserted_at(found["file"], found["function"], found["source"])
    if site is None:
        return None
    words = " ".join(site.message.split())
    failing = " and ".join(site.conditions)
    meaning = (
        f"the pasted traceback stops at `{found['source']}`, a line of the assert in "
        f"{_NAME[site.framework]}'s "
        f"{site.file}, in {found['function']}: it fails with AssertionError: '{words[:200]}' when "
        f"`{failing}` (the message index's assert; the exception line itself is not in the paste)"
    )
    settings = _settings(site.framework, "assert " + " ".join(site.conditions))
    if settings:
        flags = ", ".join(s["flag"] for s in settings)
        fix = f"change what makes `{failing}` hold: it reads {flags} (a value the server may also set itself)"
    else:
        fix = (
            f"its operands are the code's own values: the launch's settings and the model that lead to "
            f"{found['function']} decide them; `why` on the message: {words[:80]}"
        )
    return meaning, fix, settings


# an assert no server argument reaches checks the code's own state (vllm#20013's `coord_socket is not None`
# in offline data parallel, fixed by vllm PR#35916): with settings the release accepts, it failing is the
# release's bug, which no value the launch gives repairs
_INVARIANT = (
    "an invariant of the release's own code, so with settings it accepts a bug of the release (a release "
    "with the fix, or its issue tracker)"
)


def _site_words(site: Mapping[str, Any]) -> tuple[str, str]:
    """(where and when, the fix) of an indexed assert, in ``why``'s words."""
    name = _NAME[site["framework"]]
    lines = ", ".join(str(n) for n in site["lines"][:4])
    at = f"{site['file']}" + (f":{lines}" if lines else "")
    where = f"{name}'s {site['function']} ({at}; {site['releases']})"
    when = f", under `{site['when'][-1]}`" if site["when"] else ""
    operands = f"; {site['operands']}" if site["operands"] else ""
    if site.get("model"):
        operands += f"; from the model's configuration: {', '.join(site['model'][:3])}"
    read = ", ".join(s["flag"] for s in site["settings"] if s.get("how") != "named")
    named = ", ".join(
        f"{s['name']} (named like {s['flag']})" for s in site["settings"] if s.get("how") == "named"
    )
    if read or named:
        said = [f"it reads {read}"] if read else []
        said += [f"its operand {named}"] if named else []
        fix = f"change what makes `{site['condition']}` false: {'; '.join(said)}{operands}"
    else:
        fix = (
            f"its operands are the code's own values, not server arguments: {_INVARIANT}{operands}; the "
            f"launch's settings and the model that lead to {site['function']} decide them"
        )
    return f"{where}: `{site['condition']}` was false{when}", fix


def _explain_indexed(found: dict[str, Any], site: dict[str, Any]) -> dict[str, Any]:
    """A bare assert's frame matched in the assert index: the site's whole condition and releases."""
    where, fix = _site_words(site)
    how = "its line and statement" if site["how"] == "line+condition" else f"its {site['how']}"
    meaning = (
        f"a bare {found['exception']} (an assert without a message) raised in {where} "
        f"(the traceback's last {_NAME[found['framework']]} frame, matched by {how})"
    )
    return {**found, "assert": site, "settings": site["settings"], "meaning": meaning, "fix": fix}


def _explain_quoted(site: dict[str, Any]) -> dict[str, Any]:
    """An ``assert COND`` quoted without its frame (a title, a sentence), found in the assert index."""
    where, fix = _site_words(site)
    if site.get("ambiguous"):
        # the text names none of the files: which of them raised it, the text does not say
        files = ", ".join(f"{s['file']} ({s['releases']})" for s in site["sites"])
        more = (
            f" and {site['others'] + 1 - len(site['sites'])} more"
            if site["others"] + 1 > len(site["sites"])
            else ""
        )
        meaning = (
            f"the quoted condition `{site['condition']}` is asserted at {site['others'] + 1} sites of "
            f"{_NAME[site['framework']]} ({files}{more}); the text does not say which; the first: {where}"
        )
        fix = f"paste the traceback's last frame to tell them apart; for the first: {fix}"
        return _quoted_section(site, meaning, fix)
    others = ""
    if site["others"]:
        # the same condition elsewhere, in other releases (a file renamed) or in another function
        also = ", ".join(f"{s['file']} {s['function']} ({s['releases']})" for s in site["sites"][1:])
        rest = site["others"] + 1 - len(site["sites"])
        others = f" (the same condition also in {also}{f' and {rest} more' if rest > 0 else ''})"
    meaning = f"the quoted assert is {where}{others}"
    if site["how"] == "line+condition":
        meaning += " (the file and line the text names)"
    return _quoted_section(site, meaning, fix)


def _quoted_section(site: dict[str, Any], meaning: str, fix: str) -> dict[str, Any]:
    return {
        "state": "quoted",
        "framework": site["framework"],
        "file": site["file"],
        "function": site["function"],
        "line": (site["lines"] or [None])[0],
        "source": f"assert {site['condition']}",
        "exception": "AssertionError",
        "deepest": True,
        "assert": site,
        "settings": site["settings"],
        "meaning": meaning,
        "fix": fix,
    }


# the sentence a reporting site's fix gets when the text holds the traceback it reports
def reported_traceback(found: Mapping[str, Any]) -> str:
    return f"the traceback it reports: {found['meaning']}"


def render_traceback(section: Mapping[str, Any]) -> list[str]:
    found = section.get("traceback")
    if not found:
        return []
    label = "assert" if found.get("state") == "quoted" else "traceback"
    return [f"{label}: {found['meaning']}", f"  fix: {found['fix']}"]


def reporting(group: Mapping[str, Any]) -> bool:
    """A site that only reports an error another one raised: its fix says so (why_wrapped), or it logs the
    exception its ``except`` handler caught ("EngineCore failed to start.", logger.exception)."""
    fix = str(group.get("fix") or "")
    if fix.startswith(("this only reports another error", "this reports ")):
        return True
    if _POINTS_ABOVE.search(str(group.get("message") or "")):
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
