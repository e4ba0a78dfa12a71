"""One call of bash's ``getopts`` builtin as a pure function: given the option string, the words it parses
(``"$@"`` or the words after the name), ``OPTIND`` and the position inside a grouped word (``-st4``), what
the call returns and leaves in the name, ``OPTARG`` and ``OPTIND``.

It follows the bash manual ("getopts optstring name [arg ...]") and bash's own getopt.c where the manual
is silent, each point checked against /bin/bash by tests/shell/test_getopts_differential.py:
- a word that is not ``-x...`` (or is ``-`` alone) ends the options, ``OPTIND`` stays on it; ``--`` ends
  them and ``OPTIND`` moves past it; at the end the name gets ``?`` and ``OPTARG`` is unset, status 1;
- inside a grouped word ``OPTIND`` stays on that word until its last letter is taken;
- an option letter followed by ``:`` takes the rest of its word, else the next word (``OPTIND`` + 2);
- an unknown letter, or a missing argument, sets the name to ``?`` (``OPTARG`` unset, a message on
  stderr); with a leading ``:`` in the option string (silent mode) ``OPTARG`` is the letter, and a
  missing argument sets the name to ``:``;
- assigning ``OPTIND`` (``OPTIND=1``, ``local OPTIND``, ``unset OPTIND``) restarts at the beginning of a
  word when the new value is 1, 0, negative or empty (bash's ``sv_optind``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GetoptsStep:
    """What one call of bash's ``getopts`` builtin does: its status and the variables it sets."""

    status: int  # 0: an option was found (valid or not), 1: the options ended
    name_value: str  # what the NAME variable gets (the letter, ``?`` or ``:``)
    optarg: str | None  # OPTARG's new value; None: unset
    optind: int  # OPTIND's new value
    charindex: int  # where the next call goes on inside the word ``optind`` points to (0: a new word)


def restart_index(optind_text: str | None) -> tuple[int, bool]:
    """``OPTIND`` as a script assigned it: the word to start at (1-based) and whether bash restarts at the
    beginning of a word (values 1, 0, negative or empty; an unset OPTIND counts as 1). Other values keep
    the position inside a word, as bash's ``sv_optind`` does."""
    text = (optind_text or "").strip()
    try:
        value = int(text) if text else 0
    except ValueError:
        value = 0  # bash's atoi: a non-number counts as 0
    if value <= 1:
        return 1, True
    return value, False


def getopts_step(optstring: str, words: list[str], optind: int, charindex: int) -> GetoptsStep:
    silent = optstring.startswith(":")
    spec = optstring[1:] if silent else optstring
    if optind < 1:
        optind, charindex = 1, 0
    if charindex == 0 or optind > len(words) or charindex >= len(words[optind - 1]):
        if charindex:
            optind += 1  # a grouped word whose letters are all taken
        charindex = 0
        if optind > len(words):
            return GetoptsStep(1, "?", None, optind, 0)
        word = words[optind - 1]
        if word == "--":
            return GetoptsStep(1, "?", None, optind + 1, 0)
        if not word.startswith("-") or word == "-":
            return GetoptsStep(1, "?", None, optind, 0)
        charindex = 1
    word = words[optind - 1]
    letter = word[charindex]
    charindex += 1
    at_end = charindex >= len(word)
    pos = spec.find(letter) if letter != ":" else -1
    if pos < 0:
        nxt_ind, nxt_char = (optind + 1, 0) if at_end else (optind, charindex)
        return GetoptsStep(0, "?", letter if silent else None, nxt_ind, nxt_char)
    takes_arg = spec[pos + 1 : pos + 2] == ":"
    if not takes_arg:
        nxt_ind, nxt_char = (optind + 1, 0) if at_end else (optind, charindex)
        return GetoptsStep(0, letter, None, nxt_ind, nxt_char)
    if not at_end:
        return GetoptsStep(0, letter, word[charindex:], optind + 1, 0)
    if optind < len(words):
        return GetoptsStep(0, letter, words[optind], optind + 2, 0)
    # the argument is missing
    return GetoptsStep(0, ":" if silent else "?", letter if silent else None, optind + 1, 0)
