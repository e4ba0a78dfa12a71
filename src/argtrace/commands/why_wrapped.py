"""``why`` on a message that reports another error inside it: the inner message is the cause.

vLLM's executor reports a worker's failure as "Worker failed with error '{result}', please check the stack
trace above for the root cause" (``MultiprocExecutor.collective_rpc``). Its own condition reads
``--enable-fault-tolerance``, so the wrapper's fix said "change --enable-fault-tolerance", which has nothing
to do with the worker's error (vllm#57713: the inner message was FlashInfer's MLA dtype check). When the best
site's message puts a placeholder after the words "error"/"failed"/"exception" and the text fills it with a
sentence, that sentence is explained on its own: its first site, when one is found, goes first (marked
``reported_by`` the wrapper); when none is, the wrapper's fix says the cause is the inner message and that no
indexed site raises it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a placeholder the wrapper's own words say is an error: "failed with error '{result}'", "exception: {e}"
_REPORTING = re.compile(r"(?:error|failed|failure|exception)\W{0,4}$", re.I)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_MIN_WORDS = 5
_MIN_SCORE = 0.8  # the share of the inner text the site's template covers
_MIN_LITERAL = 20  # literal characters in common (why_confidence's floor for a strong match)


# the name an ``except ... as e`` handler binds: a message that prints it reports the caught error
CAUGHT = frozenset({"e", "ex", "exc", "err", "error", "exception"})


# The lazy `(.+?)` of each placeholder make the search quadratic or worse in the text's length: a pasted
# 24 KB traceback with 10,000 nested parentheses took 11-17 s (session 13's probe). A longer text is searched
# line by line, only in the first lines that hold the template's longest literal piece, each cut here.
MAX_TEXT = 2000
MAX_LINES = 3


def inner_message(template: str, text: str, caught: bool = False) -> str | None:
    """The sentence ``text`` puts in ``template``'s placeholder that follows "error"/"failed", or, for a
    site inside an ``except`` handler (``caught``), in a placeholder that is the caught exception itself
    (SGLang's "Ignore import error when loading {name}. {e}"), or None."""
    pieces = _PLACEHOLDER.split(template)
    holes = _PLACEHOLDER.findall(template)
    if not holes:
        return None
    if len(text) > MAX_TEXT:
        anchor = max(pieces, key=len)
        lines = [line for line in text.splitlines() if anchor and anchor in line][:MAX_LINES]
        for line in lines:
            found = inner_message(template, line[:MAX_TEXT], caught)
            if found is not None:
                return found
        return None
    pattern = "".join(re.escape(p) + ("(.+?)" if i < len(holes) else "") for i, p in enumerate(pieces))
    # a placeholder ending the template ends with its line: the next log line is not part of the error
    flags = re.S if pieces[-1] else re.S | re.M
    m = re.search(pattern + "$" if pieces[-1] else pattern + "(?=$)", text.strip(), flags) or re.search(
        pattern, text, re.S
    )
    if m is None:
        return None
    for i, value in enumerate(m.groups()):
        reporting = _REPORTING.search(pieces[i]) or (caught and holes[i][1:-1].strip() in CAUGHT)
        if not reporting or value.strip().startswith(_TRACEBACK):
            continue  # a traceback's header is not the error: its exception line is (why_traceback)
        value = quoted(value.strip())
        if len(value.split()) >= _MIN_WORDS or BARE.fullmatch(value):
            return value
    return None


_QUOTED = re.compile(r"(['\"`])(?P<inner>[^'\"`\n]{8,})\1(?=\W|$)")


def quoted(value: str) -> str:
    """The quoted message a value opens with, without the words after its closing quote: vllm#29943's title
    "Worker failed with error 'DeepGEMM backend is not available or outdated.' When deploy DeepSeek-V3.2"
    quotes the worker's error and goes on in the reporter's own words, which no site prints."""
    m = _QUOTED.match(value)
    # a sentence (words with spaces), not one quoted name opening a message ("'max_model_len' must be ...")
    if m is None or " " not in m.group("inner").strip() or not value[m.end() :].strip():
        return value
    return m.group("inner").strip()


_TRACEBACK = "Traceback (most recent call last)"
# an exception's class with no message: vllm#41027's "Worker failed with error 'AssertionError: '"
BARE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::\s*)?")


def explain_inner(groups: list[dict[str, Any]], text: str, explain: Callable[[str], dict[str, Any]]) -> None:
    """Put the inner message's own site first, or say the wrapper only reports it."""
    if not groups:
        return
    wrapper = groups[0]
    caught = any(str(c).startswith("except") for c in wrapper.get("conditions") or ())
    inner = inner_message(str(wrapper.get("message") or ""), text, caught)
    if inner is None:
        return
    if BARE.fullmatch(inner):
        cls = inner.rstrip(": ")
        wrapper["fix"] = (
            f"this only reports another error: a bare {cls} (raised without a message, so no indexed site "
            f"prints it) where the wrapped code ran; its own traceback, printed before this line, names the "
            f"statement that failed; the settings {wrapper['function']} reads are not its"
        )
        wrapper["reports"] = inner
        for twin in groups[1:]:  # the same message in another function or release: the same report
            if twin.get("message") == wrapper.get("message"):
                twin["fix"], twin["reports"] = wrapper["fix"], inner
        return
    found = explain(inner)
    best = (found.get("matches") or [None])[0]
    # the inner text's own site only when it matches most of it: a short shared phrase ("is not supported.")
    # would name some other check
    strong = (
        best is not None
        and found.get("confidence") == "strong"
        and float(best.get("score") or 0) >= _MIN_SCORE
        and int(best.get("specificity") or 0) >= _MIN_LITERAL
        and (best.get("how") == "full" or _words_found(inner, str(best.get("message") or "")) >= _MIN_SCORE)
    )
    if strong:
        first = dict(found["matches"][0])
        if int(wrapper.get("specificity") or 0) >= _MIN_LITERAL:
            first["reported_by"] = wrapper["function"]
            groups.insert(0, first)
        else:
            # the wrapper itself rests on a few words ("{memset_name} failed with error {err}", 15 characters,
            # for vllm#29943's "Worker failed with error '...'"): the inner site is the cause, and which code
            # reported it is not known, so the wrapper goes after it and is named by no one
            groups.remove(wrapper)
            groups[:0] = [first, wrapper]
        return
    wrapper["fix"] = (
        f"this only reports another error, the cause: {inner!r}; no indexed site raises that text (a "
        f"library's own check, or a release not read): its settings are not {wrapper['function']}'s"
    )
    wrapper["reports"] = inner


_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _words_found(inner: str, message: str) -> float:
    """The share of the inner text's words that the site's message holds as literal words. A partial
    match's score is the density of its best run of words, not how much of the text it explains: FlashInfer's
    "MLA kv_data_type torch.uint8 is not supported. Supported dtypes: [...]" shares only "is not supported.
    Supported dtypes" with vLLM's ROCm dtype check (5 of 15 words), a run of density 0.95."""
    words = [w.lower() for w in _WORDS.findall(inner)]
    literal = {w.lower() for w in _WORDS.findall(_PLACEHOLDER.sub(" ", message))}
    return sum(w in literal for w in words) / len(words) if words else 0.0
