"""Secrets never leave redacted form.

A secret is replaced by ``<redacted:HASH8>`` (the first 8 hex digits of its SHA-256), so two equal secrets
still compare equal in a report without either being shown.

There is one mechanism, :class:`Redactor`, applied at the report boundary (``render.render_report`` for
stdout in every format, ``render.boundary`` for stderr, error messages and exceptions' text). It is driven

* by **names**: a setting, flag, variable or payload field whose name marks it secret
  (:func:`is_secret_name`, :func:`is_secret_setting`; the lists are in
  docs/redaction.md) has its value masked whole wherever it sits, whatever its length, every element of
  a list;
* by **values once known secret anywhere in the run**: each value found by name (in argtrace's own command
  line, the caller's environment, a script's environment, a process's ``/proc`` environ, a log, an
  endpoint payload) is masked wherever else it appears: values of 6 characters or more as substrings,
  shorter ones only where they stand as a whole word (so a secret ``4`` does not mangle ``RS004``);
* by **shapes** in free text: ``user:password@`` in URLs, ``Authorization: Bearer|Basic X``, ``Bearer X``,
  ``NAME=VALUE`` / ``'name': VALUE`` with a secret name, ``--api-key X`` and well-known token formats.

Layers that read secrets register them with :func:`remember` / :func:`remember_env` /
:func:`remember_argv` so that the boundary knows them even where the layer itself quotes no name. Names and
shapes are recognised in secret_detection.py; callers import them from here, the one mechanism's module.

Every pattern here runs in linear time: candidate starts are anchored by a lookbehind (a match can only
begin where a run of its characters begins) and runs are matched possessively, so a 1 MB alphanumeric
value costs one scan, not a scan per position (a 100 KB ``--served-model-name`` took 209 s before).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from argtrace.secret_detection import (
    _LIST_FLAGS,
    _LITERAL_LEFT,
    COMMAND_LINE_FIELDS,
    _could_be_secret,
    _Lazy,
    already_masked,
    is_masked,
    is_secret_flag,
    is_secret_name,
    is_secret_setting,
    mask,
    redact_text,
    secrets_in_text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- structures -----------------------------------------------------------------------------------------


def redact_value(name: str | None, value: str | None) -> str | None:
    """A value as it may be shown: masked whole when its name marks it secret, else scrubbed inside."""
    if value is None:
        return None
    if name is not None and (is_secret_name(name) or is_secret_flag(name)) and value != "":
        return mask(value)
    return redact_text(value)


def redact_env(env: Mapping[str, str | None]) -> dict[str, str | None]:
    return {k: redact_value(k, v) for k, v in env.items()}


def _argv_secret_positions(argv: Sequence[str | None]) -> set[int]:
    """Indexes of the words that are values of secret flags (``--api-key A B``: both A and B for vLLM's
    list-valued flag; one word for the others)."""
    out: set[int] = set()
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word is None or not word.startswith("-") or "=" in word or not is_secret_flag(word):
            continue
        first = True
        while i < len(argv) and (first or word in _LIST_FLAGS):
            nxt = argv[i]
            if nxt is not None and nxt.startswith("-") and nxt != "-" and not first:
                break
            if nxt is not None and nxt.startswith("--") and first:
                break
            out.add(i)
            i += 1
            first = False
    return out


def redact_argv(argv: Sequence[str | None]) -> list[str | None]:
    """Mask the value of secret flags (``--api-key X``, ``--api-key=X``, ``--api-key A B``) and secret
    shapes."""
    positions = _argv_secret_positions(argv)
    out: list[str | None] = []
    for i, word in enumerate(argv):
        if word is None:
            out.append(None)
        elif i in positions:
            out.append(word if already_masked(word) else mask(word))
        elif word.startswith("-") and "=" in word and is_secret_flag(word):
            flag, value = word.split("=", 1)
            out.append(f"{flag}={value if already_masked(value) else mask(value)}")
        else:
            out.append(redact_text(word))
    return out


def argv_secrets(argv: Sequence[str | None]) -> set[str]:
    """The raw secret strings in an argv: secret flags' values and ``NAME=VALUE`` words with secret names."""
    words = list(argv)
    found = {words[i] or "" for i in _argv_secret_positions(words)}
    for word in words:
        if word is None:
            continue
        if word.startswith("-") and "=" in word and is_secret_flag(word):
            found.add(word.split("=", 1)[1])
        else:
            found |= secrets_in_text(word)
    return {s for s in found if not is_masked(s)}


# A shell word: unquoted runs, '...' and "..." parts, backslash escapes (linear; shlex.split is quadratic in
# a word's length: a 100 KB word took 3 s).
_SHELL_WORD = _Lazy(r"""(?:[^\s'"\\]++|'[^']*+'?|"(?:[^"\\]++|\\.)*+"?|\\.?)++""", re.S)
_SHELL_PART = _Lazy(r"""'([^']*+)'?|"((?:[^"\\]++|\\.)*+)"?|\\(.?)|([^'"\\]++)""", re.S)


def split_words(text: str) -> list[str]:
    """``text`` split into words as a shell would (quotes removed), for command-line strings. Never fails:
    an unclosed quote or a trailing backslash still yields the words around a secret, which is why this is
    not ``layers/transport/words.split_like_shlex`` (that one raises as ``shlex`` does)."""
    words = []
    for m in _SHELL_WORD.finditer(text):
        parts = []
        for p in _SHELL_PART.finditer(m.group(0)):
            if p.group(2) is not None:
                parts.append(re.sub(r"\\(.)", r"\1", p.group(2)))
            else:
                parts.append(next(g for g in (p.group(1), p.group(3), p.group(4)) if g is not None))
        words.append("".join(parts))
    return words


def command_line_secrets(text: str) -> set[str]:
    """Secrets in a whole command line (``launch_command``, ``-c COMMAND``): split as a shell would."""
    return argv_secrets(split_words(text)) | secrets_in_text(text)


def secret_values(env: Mapping[str, str | None], argv: Iterable[str | None] = ()) -> set[str]:
    """The raw secret strings present in env/argv, for scrubbing them out of any other text."""
    found = {v for k, v in env.items() if v and is_secret_name(k)}
    return {s for s in found | argv_secrets(list(argv)) if not is_masked(s)}


_WORD_CHAR = r"A-Za-z0-9_"
LONG_SECRET = 6


# A known secret longer than this is found with str.find, not compiled into the alternation: sre compiles a
# literal into some 60 bytes per character, so a 10 MB compose value under HF_TOKEN took 1.6 GB and 77 s, a
# 50 MB one 3.7 GB (probe of session 15). No credential is this long; such a value is still masked whole.
MAX_PATTERN_SECRET = 4096


class KnownSecrets:
    """The run's known secrets as one masking pass: an alternation of the usual ones, plain searches for
    the huge ones, in one scan so that a mask is never re-masked."""

    def __init__(self, secrets: Iterable[str]) -> None:
        usable = {s for s in secrets if _could_be_secret(s) and not is_masked(s)}
        self.huge = sorted((s for s in usable if len(s) > MAX_PATTERN_SECRET), key=lambda s: (-len(s), s))
        self.pattern = _known_pattern(s for s in usable if len(s) <= MAX_PATTERN_SECRET)

    def __bool__(self) -> bool:
        return bool(self.huge) or self.pattern is not None

    def sub(self, text: str) -> str:
        if not self.huge:
            return text if self.pattern is None else self.pattern.sub(_mask_match, text)
        spans: list[tuple[int, int, str]] = []
        for secret in self.huge:  # longest first: a shorter one inside a longer one's span is not taken
            at = text.find(secret)
            while at >= 0:
                end = at + len(secret)
                if not any(a < end and at < b for a, b, _ in spans):
                    spans.append((at, end, secret))
                at = text.find(secret, end)
        spans.sort()
        out: list[str] = []
        done = 0
        for start, end, secret in spans:
            gap = text[done:start]
            out.append(gap if self.pattern is None else self.pattern.sub(_mask_match, gap))
            out.append(mask(secret))
            done = end
        rest = text[done:]
        out.append(rest if self.pattern is None else self.pattern.sub(_mask_match, rest))
        return "".join(out)


def _mask_match(m: re.Match[str]) -> str:
    return mask(m.group(0))


def _known_pattern(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One alternation for all known secrets, longest first: values of LONG_SECRET characters or more match
    anywhere, shorter ones only as a whole word. One pass, so a mask is never re-masked."""
    ordered = sorted(
        {s for s in secrets if _could_be_secret(s) and not is_masked(s)}, key=lambda s: (-len(s), s)
    )
    if not ordered:
        return None
    alternatives = []
    for s in ordered:
        escaped = re.escape(s)
        if len(s) >= LONG_SECRET:
            alternatives.append(escaped)
        else:
            alternatives.append(f"(?<![{_WORD_CHAR}]){escaped}(?![{_WORD_CHAR}])")
    return re.compile("|".join(alternatives))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace every occurrence of the given secret strings (short ones as whole words), then secret
    shapes."""
    return redact_text(KnownSecrets(secrets).sub(text))


def redact_payload(value: object, secrets: Iterable[str] = (), *, _name: str | None = None) -> object:
    """A JSON-like payload as it may be shown: secret fields masked at any depth, known secrets scrubbed."""
    redactor = Redactor(secrets)
    redactor.learn_data(value if _name is None else {_name: value})
    return redactor.data(value, _name=_name)


# --- the one boundary -----------------------------------------------------------------------------------

# A report's JSON-like values of these exact types are no Mapping: tested before ``isinstance(value,
# Mapping)``, whose ABC check is a Python-level ``__instancecheck__`` call at each of the thousands of values
# the two walks of a report meet (``type(value) is dict`` answers yes first; issue 18, cold33).
_NOT_MAPPINGS = frozenset({list, tuple, int, float, bool, type(None)})

# Keys of a setting-like record ({"name": ..., "value": ...}) that carry the named value.
_VALUE_KEYS = ("value", "intended", "effective", "expected", "observed", "predicted", "actual", "default")


class Redactor:
    """Known secret values of one run, and the masking of every string that leaves argtrace."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._known: set[str] = set()
        self._seed: Callable[[], None] | None = None
        self._pattern: KnownSecrets | None = None
        self._dirty = False
        # A report carries one value in many places (argv, settings, evidence, messages): each distinct
        # string is read and masked once, so a 5 MB value costs one scan, not one per place it is quoted.
        self._read: set[str] = set()
        self._masked_texts: dict[str, str] = {}
        # Texts of files read whose lines end in a continuation backslash, and the secrets already looked
        # for in them (see learn_source).
        self._sources: dict[str, tuple[str, list[int]] | None] = {}
        self._wrapped_checked: set[str] = set()
        self._scanned: set[str] = set()  # source texts whose named secrets were learned
        self.learn_all(secrets)

    @property
    def known(self) -> set[str]:
        """The secret values known so far (a lazy seed, see :func:`new_run`, is applied first)."""
        if self._seed is not None:
            seed, self._seed = self._seed, None
            seed()
        return self._known

    def seed_later(self, seed: Callable[[], None]) -> None:
        """Learn by ``seed()`` when the values are first needed: a run that prints nothing pays nothing."""
        self._seed = seed
        self._dirty = True

    # learning
    def learn(self, value: object) -> None:
        """A value known secret by its name: a string, or every string inside a list/dict."""
        if isinstance(value, str):
            if value and not is_masked(value):
                self._known.add(value)
                # a CRLF script's value ends in `\r` (or has stray blanks) and is shown as `$'X\r'`: the
                # bare X must be masked wherever it stands too
                bare = value.strip()
                if bare and bare != value:
                    self._known.add(bare)
                # a value that reached the process with its quotes (compose's `- X="v"`, an env file's
                # X="v") is known with them, but the fix that drops them writes the bare v
                inner = bare[1:-1]
                if len(bare) > 2 and bare[0] == bare[-1] and bare[0] in "'\"" and not is_masked(inner):
                    self._known.add(inner)
                if "\n" in bare:  # a value over several lines is shown line by line (source lines, diffs)
                    self._known.update(_pieces_worth_masking(bare.split("\n")))
                self._dirty = True
        elif isinstance(value, Mapping):
            for item in value.values():
                self.learn(item)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                self.learn(item)

    def learn_all(self, values: Iterable[str]) -> None:
        for value in values:
            self.learn(value)

    def learn_env(self, env: Mapping[str, str | None]) -> None:
        self.learn_all(secret_values(env))

    def learn_argv(self, argv: Sequence[str | None]) -> None:
        self.learn_all(argv_secrets(argv))

    def learn_command_line(self, text: str) -> None:
        self.learn_all(command_line_secrets(text))

    def learn_source(self, text: str) -> None:
        """A file's text as read (a launch script, a unit): a known secret written in it over lines joined by
        a backslash (``--api-key sk-abc\\<newline>def``) reaches the server whole, but the file's lines are
        shown one by one (a fix's diff, shellcheck's evidence), and its second half on its line names no
        secret. Each piece is learned as secret when the whole is (probe of session 15: a diff showed the
        tail of an ``--api-key`` wrapped that way).

        A value the text writes under a secret's name (``export HF_TOKEN=...``, ``--api-key ...``) is learned
        too: a script bash cannot parse is not evaluated, and a line quoted for its syntax error showed the
        token with no name before it (``X="hf_...`` on the next line; the fuzzers of session 28)."""
        if text not in self._scanned:
            self._scanned.add(text)
            # read as the shell reads it, lines continued by a backslash joined (their pieces: below)
            wrapped = "\\\n" in text or "\\\r\n" in text
            self.learn_all(secrets_in_text(_joined_lines(text)[0] if wrapped else text))
        if ("\\\n" in text or "\\\r\n" in text) and text not in self._sources:
            self._sources[text] = None  # joined on first need
            self._wrapped_checked.clear()
            self._dirty = True

    @property
    def sources(self) -> list[str]:
        return list(self._sources)

    def _learn_wrapped(self) -> None:
        """Learn the pieces of every known secret that a registered source writes over continuation lines."""
        fresh = [v for v in self._known if len(v) >= LONG_SECRET and v not in self._wrapped_checked]
        self._wrapped_checked.update(fresh)
        if not self._sources or not fresh:
            return
        pattern = _known_pattern(v for v in fresh if len(v) <= MAX_PATTERN_SECRET)
        if pattern is None:
            return
        from bisect import bisect_left, bisect_right
        from itertools import pairwise

        for text, joined in list(self._sources.items()):
            if joined is None:
                joined = self._sources[text] = _joined_lines(text)
            flat, cuts = joined
            for m in pattern.finditer(flat):
                lo, hi = bisect_right(cuts, m.start()), bisect_left(cuts, m.end())
                if lo < hi:  # the secret crosses a removed backslash-newline
                    bounds = [m.start(), *cuts[lo:hi], m.end()]
                    self._known.update(_pieces_worth_masking(flat[a:b] for a, b in pairwise(bounds)))

    def learn_data(self, value: object) -> None:
        """Walk a report-like structure and learn every value its names mark secret."""
        if isinstance(value, str):  # the commonest leaf, tested before the ABC's slower Mapping test
            if value not in self._read:
                self._read.add(value)
                self.learn_all(secrets_in_text(value))
        elif type(value) is dict or (type(value) not in _NOT_MAPPINGS and isinstance(value, Mapping)):
            name = value.get("name")
            if isinstance(name, str) and is_secret_setting(name, _str_or_none(value.get("flag"))):
                for key in _VALUE_KEYS:
                    self.learn(value.get(key))
                for obs in value.get("history") or []:
                    if isinstance(obs, Mapping):
                        self.learn(obs.get("value"))
            for key, item in value.items():
                key_text = str(key)
                if is_secret_name(key_text):
                    self.learn(item)  # every string under it, a list's elements, a dict's leaves
                elif key_text in COMMAND_LINE_FIELDS and isinstance(item, str):
                    self.learn_command_line(item)
                self.learn_data(item)
            self._learn_spelling(value)
        elif isinstance(value, (list, tuple)):
            texts = [_word_text(v) for v in value]
            if texts and all(t is not None or v is None for t, v in zip(texts, value, strict=True)):
                self.learn_argv(texts)
            for item in value:
                self.learn_data(item)

    def _learn_spelling(self, value: Mapping[Any, Any]) -> None:
        """A secret word's source spelling (``expansion``: ``${PART}tail``) when it holds literal characters
        of the secret: shown beside the masked value it gave away the tail (probe of session 13)."""
        spelling = value.get("expansion")
        if not isinstance(spelling, str) or spelling == "literal":
            return
        said = value.get("text", value.get("value"))
        if not isinstance(said, str) or said not in self.known:
            return
        # A spelling holds the secret's characters when its literal pieces (quotes dropped) are in the value.
        # Other ``expansion`` texts are labels of where the word came from (``ray serve llm``, ``getopts``,
        # ``arithmetic``): learned as secret they were masked as words in every hop and message (probe of
        # session 15: a Ray Serve config's "How the command travels" read ``<redacted:9f8c2d6f>``).
        pieces = [p.replace("'", "").replace('"', "") for p in _LITERAL_LEFT.split(spelling)]
        pieces = [p for p in pieces if p]
        if pieces and all(p in said for p in pieces):
            self.learn(spelling)

    # masking
    def text(self, text: str) -> str:
        """A string as it may leave argtrace."""
        if not text:
            return text
        if self._dirty or self._seed is not None:
            self.known  # noqa: B018 (the property: seeds first)
            self._learn_wrapped()
            self._pattern = KnownSecrets(self._known)
            self._dirty = False
            self._masked_texts.clear()  # masked with fewer known secrets
        done = self._masked_texts.get(text)
        if done is None:
            masked = text if self._pattern is None else self._pattern.sub(text)
            done = self._masked_texts[text] = redact_text(masked)
        return done

    def data(self, value: Any, *, _name: str | None = None) -> Any:
        """A JSON-like structure as it may leave argtrace: the field name decides at any depth (a secret
        field's string is masked whole, every element of its list), argv lists have their secret flags'
        values masked, command-line strings too, and every other string goes through :meth:`text`."""
        secret = _name is not None and is_secret_name(_name)
        if isinstance(value, str):  # the commonest leaf, tested before the ABC's slower Mapping test
            if secret:
                return self._masked(value)
            if _name in COMMAND_LINE_FIELDS:
                import shlex  # here: only a command-line field needs it (1.5 M instructions of every run)

                masked = redact_argv(split_words(value))
                return self.text(
                    " ".join(shlex.quote(w or "") if " " in (w or "") else (w or "") for w in masked)
                )
            return self.text(value)
        mapping = type(value) is dict or (type(value) not in _NOT_MAPPINGS and isinstance(value, Mapping))
        if secret and mapping:  # ``watermark_config: {...}``: every leaf
            return {k: self.data(v, _name=_name) for k, v in value.items()}
        if mapping:
            name = value.get("name")
            setting = isinstance(name, str) and is_secret_setting(name, _str_or_none(value.get("flag")))
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if setting and key in _VALUE_KEYS:
                    out[key] = self._masked(item)
                elif setting and key == "history" and isinstance(item, list):
                    out[key] = [
                        {**o, "value": self._masked(o.get("value"))} if isinstance(o, Mapping) else o
                        for o in item
                    ]
                    out[key] = self.data(out[key], _name=str(key))
                else:
                    out[key] = self.data(item, _name=str(key))
            return out
        if isinstance(value, (list, tuple)):
            if secret:
                return [self._masked(v) if isinstance(v, str) else self.data(v, _name=_name) for v in value]
            if value and all(isinstance(v, str) or v is None for v in value):
                return [w if w is None else self.text(w) for w in redact_argv(value)]
            return [self.data(v) for v in value]
        return value

    def _masked(self, value: Any) -> Any:
        if isinstance(value, str):
            return value if already_masked(value) else mask(value)
        if isinstance(value, (list, tuple)):
            return [self._masked(v) for v in value]
        return value


# A piece of a secret shorter than this is left visible: masking 1-3 characters as a word would mask
# innocent words (``2``, ``on``) and shows next to nothing of the secret.
MIN_PIECE = 4
_CONTINUATION = _Lazy(r"\\\r?\n")


def _pieces_worth_masking(pieces: Iterable[str]) -> set[str]:
    out = set()
    for piece in pieces:
        piece = piece.strip().rstrip("\\").strip()
        if len(piece) >= MIN_PIECE and _could_be_secret(piece) and not is_masked(piece):
            out.add(piece)
    return out


def _joined_lines(text: str) -> tuple[str, list[int]]:
    """``text`` with every backslash-newline removed, as the shell reads it, and where each removal was (in
    the joined text's positions)."""
    parts: list[str] = []
    cuts: list[int] = []
    done = length = 0
    for m in _CONTINUATION.finditer(text):
        parts.append(text[done : m.start()])
        length += m.start() - done
        cuts.append(length)
        done = m.end()
    parts.append(text[done:])
    return "".join(parts), cuts


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _word_text(value: object) -> str | None:
    """An argv word as a string (``servers[].words`` items are ``{"text": ...}``), else None."""
    if isinstance(value, str):
        return value
    if (
        type(value) is dict or (type(value) not in _NOT_MAPPINGS and isinstance(value, Mapping))
    ) and isinstance(value.get("text"), str):
        return str(value["text"])
    return None


# --- the run's registry ---------------------------------------------------------------------------------

_RUN = Redactor()


def run_redactor() -> Redactor:
    """The current run's secrets: what layers registered and what argtrace's own command line held."""
    return _RUN


def remember(*values: object) -> None:
    """Register values known secret (by their name) so that every output of this run masks them."""
    for value in values:
        _RUN.learn(value)


def remember_env(env: Mapping[str, str | None]) -> None:
    _RUN.learn_env(env)


def remember_argv(argv: Sequence[str | None]) -> None:
    _RUN.learn_argv(argv)


def remember_source(text: str) -> None:
    """Register a file's text as read (see :meth:`Redactor.learn_source`)."""
    _RUN.learn_source(text)


@contextmanager
def new_run(words: Sequence[str] = (), environ: Mapping[str, str] | None = None) -> Iterator[Redactor]:
    """A fresh registry for one command: seeded with the secrets in argtrace's own words (``--api-key K``,
    ``--env HF_TOKEN=X``, a ``-c`` command line) and in the caller's environment by name."""
    global _RUN
    previous = _RUN
    _RUN = redactor = Redactor()
    argv = list(words)
    env = dict(os.environ if environ is None else environ)

    def seed() -> None:
        redactor.learn_argv(argv)
        for word in argv:
            if " " in word:
                redactor.learn_command_line(word)
        redactor.learn_env(env)

    redactor.seed_later(seed)
    try:
        yield _RUN
    finally:
        _RUN = previous
