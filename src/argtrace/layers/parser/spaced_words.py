"""A refused word that holds a blank and a known flag: ``' --reasoning-parser=deepseek_r1'`` (a blank typed
before the flag, gpustack#4375), ``'--max-model-len 8192'`` (a flag and its value in one word: a quoted
``"$ARGS"``, a list item, a subprocess argument, vllm#8273) or ``'--enforce-eager '``.

argparse decides these words by its own rule (``ArgumentParser._parse_optional``, every Python release): a
word whose first character is not ``-`` is a positional, and so is an option-like word with a space in it
that is no option string, no ``--flag=value`` and no abbreviation of one. So the flag inside never reaches
the server and the word is left over ("unrecognized arguments", exit 2) whichever release runs. The other
leftover paths (``leftovers.py``) named the word "a stray word" or the nearest flag, and told the user to
quote it or to write the flag it already holds; the cause is the blank, and the fix is to split the word or
delete the blank. The finding keeps PA001's opening (``'WORD' (after X) is not a value of any flag``), which
``causes.py`` reads to fold it under the carrier's finding that made the word (TP011, TP021).
"""

from __future__ import annotations

import re

from argtrace.layers.parser.context import ParseContext

# a double-quoted expansion keeps its blanks: `"$ARGS"`, `"${EXTRA_ARGS}"` (the shell layer's record)
_QUOTED_EXPANSION = re.compile(r'^"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"$')


def known_flag(ctx: ParseContext, word: str) -> str | None:
    """The option string ``word`` (one blank-free word) spells in the analysed release: exactly, as
    ``--flag=value``, or with vLLM's underscore-to-dash rewrite; else ``None``."""
    if not word.startswith("-") or len(word) < 2:
        return None
    flag = word.split("=", 1)[0]
    candidates = [flag]
    if ctx.schema.framework == "vllm" and flag.startswith("--"):
        candidates.append(flag.replace("_", "-"))
    for candidate in candidates:
        if ctx.schema.option(candidate) is not None:
            return candidate
    return None


def holds_flag(ctx: ParseContext, text: str | None) -> bool:
    """True for a word with a blank in it whose first part is a known flag (what ``spaced_word`` reports)."""
    if not text or not any(c.isspace() for c in text):
        return False
    parts = text.split()
    return bool(parts) and known_flag(ctx, parts[0]) is not None


def spaced_word(ctx: ParseContext, idx: int, text: str) -> bool:
    """PA001 for a refused word with a blank in it that holds a known flag; ``False`` (nothing reported)
    for any other word, and on a parser that drops unknown words silently (``parse_known_args``)."""
    if ctx.prepared.known_args or not holds_flag(ctx, text):
        return False
    parts = text.split()
    flag = known_flag(ctx, parts[0])
    assert flag is not None
    prev = ctx.tok(idx - 1)
    what = f"after {prev.text}" if prev is not None and prev.text else "at the start"
    shown = ctx.display(idx, text)
    label = ctx.schema.label
    refused = f'{label} rejects it with "unrecognized arguments" (exit 2)'
    if len(parts) == 1:
        word = parts[0]
        where = "starts" if text[:1].isspace() else "ends"
        why = (
            "argparse takes a word that does not begin with '-' for a value"
            if where == "starts"
            else "argparse takes an option-like word with a blank in it for a value"
        )
        message = (
            f"{shown!r} ({what}) is not a value of any flag: the word {where} with a blank, and {why}, not "
            f"for the option {flag}, so {flag} never reaches the server; {refused}"
        )
        fix = f"delete the blank {'before' if where == 'starts' else 'after'} {ctx.display(idx, word)}"
    else:
        shown_parts = ", ".join(f"`{ctx.display(idx, p)}`" for p in parts[:4]) + (
            ", ..." if len(parts) > 4 else ""
        )
        message = (
            f"{shown!r} ({what}) is not a value of any flag: it is one word holding {len(parts)} "
            f"({shown_parts}), and argparse takes an option-like word with a blank in it for a value, not "
            f"for the option {flag}, so {flag} never gets its value; {refused}"
        )
        word_ = ctx.tok(idx)
        expansion = None
        if word_ is not None and word_.src:
            origin = ctx.server.argv[word_.src[0]].origin if word_.src[0] < len(ctx.server.argv) else None
            m = _QUOTED_EXPANSION.match(origin.expansion or "") if origin is not None else None
            expansion = m.group(1) if m is not None else None
        if expansion is not None:
            fix = (
                f"write {expansion} without the double quotes (or keep the flags in a bash array and pass "
                f'"${{NAME[@]}}"), so that the shell splits it into {len(parts)} words'
            )
        else:
            fix = f"give each of {shown_parts} its own word (a list item each, or unquoted on a shell line)"
    ctx.add(ctx.rules.PA_UNRECOGNIZED, message, at=ctx.at(idx), setting=None, fix=fix)
    return True
