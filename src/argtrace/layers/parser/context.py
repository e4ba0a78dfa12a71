"""The state one parse's analysis shares (:class:`ParseContext`): the inputs, the result it fills, where a
token stands in the script, how a message quotes a word (credentials masked), and small wording helpers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from argtrace.frameworks.argv import ArgToken, PreparedArgv
from argtrace.frameworks.schema import Schema
from argtrace.layers.parser.parse import ParseOutcome
from argtrace.layers.parser.release_view import Releases
from argtrace.model import Evidence, LayerResult, ServerCommand, Word
from argtrace.redact import is_secret_flag, mask, redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _word(server: ServerCommand, tok: ArgToken | None) -> Word | None:
    if tok is None or not tok.src:
        return None
    i = tok.src[0]
    return server.argv[i] if 0 <= i < len(server.argv) else None


def _at(server: ServerCommand, tok: ArgToken | None) -> str | None:
    if tok is not None and tok.via == "config":
        return tok.at
    word = _word(server, tok)
    return word.origin.at if word is not None and word.origin.at else server.at


def _from_caller(word: Word | None) -> bool:
    exp = (word.origin.expansion or "") if word is not None else ""
    return bool(re.search(r"\$\{?[@*]|\$\{?@:", exp))


def _show(flag: str | None, value: Any) -> str:
    """A value as a finding message may quote it (secrets masked)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if flag and is_secret_flag(flag) and isinstance(value, str) and value:
        return mask(value)
    return redact_text(text)


class ParseContext:
    """What every finding about one parse needs: the server command, the schema, the prepared argv and the
    parse outcome, the result being filled, the rule catalog, the other releases (``releases``), and where
    each token came from in the script. The concern modules (``errors``, ``flags``, ``json_values``,
    ``settings``, ``leftovers``) are functions of it."""

    def __init__(
        self,
        server: ServerCommand,
        schema: Schema,
        prepared: PreparedArgv,
        outcome: ParseOutcome,
        all_schemas: Sequence[Schema] | None,
        result: LayerResult,
        rules: Any,
    ) -> None:
        self.server = server
        self.schema = schema
        self.prepared = prepared
        self.outcome = outcome
        self.all_schemas = all_schemas
        self.result = result
        self.rules = rules
        self.tokens = outcome.tokens
        self.fatal = prepared.fatal is not None
        self.releases = Releases(schema, all_schemas)

    def tok(self, i: int | None) -> ArgToken | None:
        return self.tokens[i] if i is not None and 0 <= i < len(self.tokens) else None

    def word(self, i: int | None) -> Word | None:
        """The script word token ``i`` came from (its text and the expansion that made it), if any."""
        return _word(self.server, self.tok(i))

    def secret_word(self, i: int | None) -> bool:
        """True when the word at token ``i`` is a credential: the value after --api-key and the like."""
        prev = self.tok(i - 1) if i is not None and i > 0 else None
        return bool(prev is not None and prev.text and is_secret_flag(prev.text) and "=" not in prev.text)

    def display(self, i: int | None, text: str) -> str:
        """A word as a message may quote it: masked when it is a credential, else scrubbed."""
        if self.secret_word(i):
            return mask(text)
        return redact_text(text)

    def src(self, i: int | None) -> tuple[int, ...]:
        tok = self.tok(i)
        return tok.src if tok is not None else ()

    def via(self, i: int | None) -> str | None:
        tok = self.tok(i)
        return tok.via if tok is not None else None

    def at(self, i: int | None) -> str | None:
        return _at(self.server, self.tok(i))

    def add(
        self,
        rule: Any,
        message: str,
        *,
        at: str | None = None,
        setting: str | None = None,
        fix: str | None = None,
        severity: str | None = None,
        evidence: Iterable[Evidence] = (),
        basis: str | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {"at": at, "setting": setting, "evidence": tuple(evidence)}
        if fix is not None:
            kwargs["fix"] = fix
        if basis is not None:
            kwargs["basis"] = basis
        if severity is not None:
            kwargs["severity"] = severity
        self.result.findings.append(rule.finding(message, **kwargs))


_NO_EFFECT = re.compile(
    r"(?i)\b(?:has no effect|no longer has any effect|is ignored|is a no-op|does nothing)\b"
)


def _deprecation_sentence(help_text: str | None) -> str | None:
    """The sentence of a flag's help that says it is deprecated (quoted in PA005)."""
    for sentence in re.split(r"(?<=[.!])\s+", " ".join((help_text or "").split())):
        if re.search(r"(?i)deprecat", sentence):
            return sentence[:240]
    return None


def _a(word: str) -> str:
    """ "an SGLang", "a vLLM" (SGLang is read letter by letter)."""
    return ("an " if word[:1].lower() in "aeios" else "a ") + word


def _fw_name(name: str) -> str:
    return {"sglang": "SGLang", "vllm": "vLLM"}.get(name, name)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
