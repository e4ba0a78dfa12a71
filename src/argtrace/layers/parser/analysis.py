"""Findings and settings from one parse (temporary: split by concern in the next commit)."""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from argtrace.frameworks.argv import UNKNOWN_PREFIX, ArgToken, PreparedArgv
from argtrace.frameworks.schema import OptionSpec, Schema, schemas_for, version_key
from argtrace.layers.parser.build import _negatives
from argtrace.layers.parser.parse import ParseOutcome
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.values import _contains_unknown, _jsonable
from argtrace.model import Evidence, LayerResult, Observation, ServerCommand, Word
from argtrace.redact import is_secret_flag, mask, redact_text


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


@dataclass(frozen=True)
class FlagHome:
    """Where a flag is known across the bundled schemas."""

    versions: tuple[str, ...]  # versions of the analysed framework that know it, oldest first
    dest: str | None  # its dest in the newest of those
    framework: str | None  # the framework whose schema knows it (the analysed one, else the other)
    other_dest: str | None = None


def _known_in(schemas: Sequence[Schema], flag: str) -> list[tuple[Schema, OptionSpec]]:
    out = []
    for s in schemas:
        spec = s.option(flag)
        if spec is not None:
            out.append((s, spec))
    return out


def _replacement(flag: str, schema: Schema, history: Sequence[Schema]) -> str | None:
    """The analysed release's spelling of a flag it does not know, from the schema diff: an option with the
    same dest, a deprecated alias's ``new_flag``, or one sharing a dest with the flag in some release."""
    dests: set[str] = set()
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        dests.add(spec.dest)
        new = (spec.raw.get("action_attrs") or {}).get("new_flag")
        if isinstance(new, str) and schema.option(new) is not None:
            return new
        for ref in re.findall(r"(--[a-z0-9][a-z0-9-]+)", spec.help or ""):
            if (
                ref != flag
                and schema.option(ref) is not None
                and re.search(r"(?i)deprecat|renamed|alias|use\s+" + re.escape(ref), spec.help or "")
            ):
                return ref
    for dest in sorted(dests):
        cur = schema.flag_for_dest(dest)
        if cur and cur != flag:
            return cur
    # A release where the flag shares its dest with another flag that the analysed release knows.
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        for other in s.options_for_dest(spec.dest):
            for o in other.option_strings:
                if o != flag and o.startswith("--") and schema.option(o) is not None:
                    return o
    return None


def _nearest(flag: str, schema: Schema) -> str | None:
    longs = [s for s in schema.option_strings if s.startswith("--")]
    base = flag.split("=", 1)[0]
    match = difflib.get_close_matches(base, longs, n=1, cutoff=0.6)
    return match[0] if match else None


def _dest_guess(flag: str) -> str:
    return flag.split("=", 1)[0].lstrip("-").replace("-", "_").replace(".", "_") or flag


def _equivalents(schema: Schema, other: Sequence[Schema]) -> dict[str, str]:
    from argtrace.frameworks.equivalents import equivalent_flags

    return equivalent_flags(schema, other)


class _Context:
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

    # -- the other releases, loaded only when a finding needs them (schema files are large)
    @functools.cached_property
    def history(self) -> list[Schema]:
        """Every known release of the analysed framework, oldest first (the analysed one included)."""
        name = self.schema.framework
        given = [s for s in self.all_schemas or () if s.framework == name]
        schemas = schemas_for(name, given)
        if not any(s.version == self.schema.version for s in schemas):
            schemas = sorted([*schemas, self.schema], key=lambda s: version_key(s.version))
        return schemas

    @functools.cached_property
    def newer(self) -> list[Schema]:
        """Releases newer than the analysed one (without loading the older ones)."""
        from argtrace.frameworks.schema import bundled_versions, load_schema

        key = version_key(self.schema.version)
        given = {s.version: s for s in self.all_schemas or () if s.framework == self.schema.framework}
        names = sorted({*bundled_versions(self.schema.framework), *given}, key=version_key)
        return [given.get(v) or load_schema(self.schema.framework, v) for v in names if version_key(v) > key]

    @functools.cached_property
    def others(self) -> list[Schema]:
        name = "vllm" if self.schema.framework == "sglang" else "sglang"
        given = [s for s in self.all_schemas or () if s.framework == name]
        return schemas_for(name, given)

    # -- helpers
    def tok(self, i: int | None) -> ArgToken | None:
        return self.tokens[i] if i is not None and 0 <= i < len(self.tokens) else None

    def _secret_word(self, i: int | None) -> bool:
        """True when the word at token ``i`` is a credential: the value after --api-key and the like."""
        prev = self.tok(i - 1) if i is not None and i > 0 else None
        return bool(prev is not None and prev.text and is_secret_flag(prev.text) and "=" not in prev.text)

    def _display(self, i: int | None, text: str) -> str:
        """A word as a message may quote it: masked when it is a credential, else scrubbed."""
        if self._secret_word(i):
            return mask(text)
        return redact_text(text)

    def _src(self, i: int | None) -> tuple[int, ...]:
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
    ) -> None:
        kwargs: dict[str, Any] = {"at": at, "setting": setting, "evidence": tuple(evidence)}
        if fix is not None:
            kwargs["fix"] = fix
        if severity is not None:
            kwargs["severity"] = severity
        self.result.findings.append(rule.finding(message, **kwargs))

    def analyse(self) -> None:
        self._hard_errors()
        self._occurrences()
        self._extras()
        self._unknown_words()
        self._required()
        self._dotted_overrides()
        if self.outcome.help_exit:
            ev = next((e for e in self.outcome.events if e.spec.action in ("help", "version")), None)
            if ev is not None:
                self.add(
                    self.rules.PA_EXITS,
                    f"{ev.typed or ev.option} makes the server print {ev.spec.action} and exit without "
                    "starting",
                    at=self.at(ev.option_tok),
                )

    # -- argparse hard errors
    def _hard_errors(self) -> None:
        rules = self.rules
        for kind, idx, message in self.outcome.hard_errors:
            tok = self.tok(idx)
            typed = tok.text if tok is not None else None
            if kind == "ambiguous":
                m = re.search(r"could match (.*)", message)
                self.add(
                    rules.PA_AMBIGUOUS,
                    f"{typed} is an abbreviation that matches several {self.schema.label} flags "
                    f"({m.group(1) if m else '?'}); argparse stops with exit status 2",
                    at=self.at(idx),
                    setting=_dest_guess(typed or ""),
                    fix="spell the flag out in full",
                )
            elif kind == "missing_value":
                nxt = self.tok(idx + 1) if idx is not None else None
                shown_next = (
                    mask(nxt.text)
                    if nxt is not None and nxt.text and typed and is_secret_flag(typed)
                    else (redact_text(nxt.text) if nxt is not None and nxt.text else "")
                )
                after = (
                    f", and the next word {shown_next!r} looks like a flag"
                    if nxt is not None and (nxt.text or "").startswith("-")
                    else ""
                )
                spec = self._spec_of(typed)
                nxt_text = nxt.text if nxt is not None else None
                is_flag = bool(nxt_text) and (
                    self._spec_of((nxt_text or "").split("=", 1)[0]) is not None
                    or (nxt_text or "").startswith("--")
                )
                fix = None
                if nxt_text and nxt_text.startswith("-") and not is_flag:
                    # a value that really starts with a dash must be attached with '='
                    fix = f"write {typed}={shown_next} (a value starting with '-' must be attached with '=')"
                self.add(
                    rules.PA_MISSING_VALUE,
                    f"{typed} needs a value but gets none{after}; argparse stops with "
                    f'"{message}" (exit status 2)',
                    at=self.at(idx),
                    setting=spec.dest if spec else _dest_guess(typed or ""),
                    fix=fix,
                )
            elif kind == "explicit_arg":
                spec = self._spec_of((typed or "").split("=", 1)[0])
                self.add(
                    rules.PA_NO_VALUE_EXPECTED,
                    f'{typed}: the flag takes no value, so argparse stops with "{message}" (exit 2)',
                    at=self.at(idx),
                    setting=spec.dest if spec else None,
                    fix=f"write {(typed or '').split('=', 1)[0]} alone",
                )
            else:
                self.add(
                    rules.PA_UNRECOGNIZED,
                    f'argparse stops with "{redact_text(message)}" (exit 2)',
                    at=self.at(idx),
                )

    def _spec_of(self, typed: str | None) -> OptionSpec | None:
        if not typed:
            return None
        spec = self.schema.option(typed)
        if spec is not None:
            return spec
        cands = [s for s in self.schema.option_strings if s.startswith(typed)]
        return self.schema.option(cands[0]) if len(cands) == 1 else None

    # -- what each flag did
    def _occurrences(self) -> None:
        by_dest: dict[str, list[Event]] = {}
        for ev in self.outcome.events:
            if ev.spec.action in ("help", "version"):
                continue
            by_dest.setdefault(ev.spec.dest, []).append(ev)
        for dest, events in by_dest.items():
            self._flag_findings(events)
            self._setting(dest, events)
        self._duplicates(by_dest)

    def _flag_findings(self, events: list[Event]) -> None:
        rules = self.rules
        schema = self.schema
        for ev in events:
            spec = ev.spec
            at = self.at(
                ev.option_tok if ev.option_tok is not None else (ev.value_toks[0] if ev.value_toks else None)
            )
            typed = (ev.typed or "").split("=", 1)[0] if ev.typed else None
            tok = self.tok(ev.option_tok)
            typed_display: str | None = typed
            if tok is not None and tok.original and typed and tok.original.split("=", 1)[0] != typed:
                typed_display = tok.original.split("=", 1)[0]
            # Abbreviation
            if (
                typed
                and ev.option
                and typed != ev.option
                and ev.option.startswith(typed)
                and typed.startswith("--")
            ):
                newer = self._ambiguous_elsewhere(typed)
                more = f"; in {newer} it is ambiguous and the server refuses to start" if newer else ""
                self.add(
                    rules.PA_ABBREVIATION,
                    f"{typed_display} is not a {schema.label} flag: argparse silently takes it as an "
                    f"abbreviation of {ev.option}{more}",
                    at=at,
                    setting=spec.dest,
                    fix=f"write {ev.option} in full",
                    # Unique in every bundled release (``--tp 8`` from SGLang's own docs): the value arrives;
                    # a warning only where a known release makes the prefix ambiguous.
                    severity=None if newer else "info",
                )
            # Single-dash long option parsed as a short flag plus attached value
            word = tok.original or tok.text if tok is not None else None
            if (
                word
                and word.startswith("-")
                and not word.startswith("--")
                and len(word) > 2
                and ev.option
                and len(ev.option) == 2
                and word[:2] == ev.option
                and not word[2:].isdigit()
            ):
                longs = [s for s in schema.option_strings if s.startswith("-" + word.split("=", 1)[0])]
                if longs:
                    self.add(
                        rules.PA_SINGLE_DASH,
                        f"{word} has a single hyphen: argparse reads it as {ev.option} with the value "
                        f"{word[2:]!r}, not as {longs[0]}",
                        at=at,
                        setting=spec.dest,
                        fix=f"write {longs[0]}",
                    )
            # --config=FILE (or an abbreviation): the rewrite looks for the exact word, so nothing is merged
            word_text = ((tok.original or tok.text) if tok is not None else ev.typed) or ""
            if (
                "--config" in spec.option_strings
                and schema.has_rewrite("config_yaml")
                and word_text != "--config"  # the exact word: merged, or the launcher stopped (PA018)
            ):
                self.add(
                    rules.PA_CONFIG_IGNORED,
                    f"{word_text}: {schema.label} expands a config file only when `--config` and "
                    f"the file name "
                    "are two separate words; this spelling is parsed as a plain option and every setting in "
                    f"the file is ignored",
                    at=at,
                    setting=spec.dest,
                    fix=f"write --config {ev.raw[0] if ev.raw else 'FILE'}",
                )
            # Deprecated / retired
            if ev.kind == "noop":
                msg = spec.deprecation_message or "deprecated"
                retired = (spec.raw.get("action_attrs") or {}).get("error_message")
                if retired:
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is retired in {schema.label}: {retired} (argparse exit 2)",
                        at=at,
                        setting=spec.dest,
                    )
                else:
                    repl = self._help_replacement(spec)
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is accepted but ignored by {schema.label} ({msg}); nothing is stored"
                        + (f"; use {repl}" if repl else ""),
                        at=at,
                        setting=spec.dest,
                        fix=f"use {repl}" if repl else None,
                    )
            elif spec.deprecation_message:
                new = (spec.raw.get("action_attrs") or {}).get("new_flag") or self._help_replacement(spec)
                msg = spec.deprecation_message or "deprecated"
                if msg == "deprecated":
                    msg = _deprecation_sentence(spec.help) or "the parser marks it deprecated"
                if _NO_EFFECT.search(msg) or _NO_EFFECT.search(spec.help or ""):
                    # Stored, but the framework no longer reads it: the value never takes effect.
                    why = next(
                        (
                            t
                            for t in re.split(r"(?<=[.!])\s+", " ".join((spec.help or "").split()))
                            if _NO_EFFECT.search(t)
                        ),
                        "",
                    )
                    if why and why not in msg:
                        msg = f"{msg} {why}"
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is accepted but has no effect in {schema.label}: {msg}",
                        at=at,
                        setting=spec.dest,
                        fix="remove the flag" + (f" (see {new})" if new else ""),
                    )
                else:
                    self.add(
                        rules.PA_DEPRECATED,
                        f"{ev.option} is deprecated in {schema.label}: {msg}"
                        + (f" (the current spelling is {new})" if new and new not in msg else ""),
                        at=at,
                        setting=spec.dest,
                        fix=f"use {new}" if new else None,
                    )
            else:
                removed = self._removed_later(ev.option)
                if removed:
                    self.add(rules.PA_REMOVED_LATER, removed, at=at, setting=spec.dest)
            for kind, message in ev.errors:
                if kind == "choice":
                    valid_in = self._choice_valid_in(spec, ev.value)
                    extra = f"; {ev.value!r} is valid in {valid_in}" if valid_in else ""
                    self.add(
                        rules.PA_INVALID_CHOICE,
                        f"{redact_text(message)}{extra} (argparse exit 2)",
                        at=at,
                        setting=spec.dest,
                    )
                elif kind == "choice?":
                    self.add(
                        rules.PA_INVALID_CHOICE,
                        f"{redact_text(message)}, unless the flag's own converter (which argtrace cannot "
                        "reproduce) rewrites the value first",
                        at=at,
                        setting=spec.dest,
                        severity="warning",
                    )
                elif kind == "invalid" and "Extra inputs are not permitted" in message:
                    dataclass = schema.config_dataclass(spec.dest) or {}
                    fields = set(dataclass.get("fields") or ())
                    keys = re.findall(r"'([^']+)'", message.split("has no field", 1)[-1])
                    hints = self._key_hints(spec.dest, keys, fields)
                    self.add(
                        rules.PA_UNKNOWN_JSON_KEY,
                        f"{redact_text(message)} (argparse exit 2)" + (f"; {hints}" if hints else ""),
                        at=at,
                        setting=spec.dest,
                    )
                elif kind == "invalid":
                    rule = (
                        rules.PA_INVALID_JSON
                        if (_json_valued(spec, schema) or "json" in message.lower())
                        else rules.PA_INVALID_VALUE
                    )
                    self.add(
                        rule, f"{self._scrub(spec, message)} (argparse exit 2)", at=at, setting=spec.dest
                    )
                elif kind == "retired":
                    pass
            self._dropped_keys(spec, ev, at)
            if _json_valued(spec, schema) and ev.raw:
                self._json_duplicates(spec, ev, at)
                if not ev.errors and isinstance(ev.value, str) and ev.kind == "store":
                    self._json_string(spec, ev, at)

    def _dropped_keys(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
        """Keys of a JSON config flag that its config class does not have and silently drops."""
        dataclass = self.schema.config_dataclass(spec.dest)
        if dataclass is None or (dataclass.get("extra") or "ignore") != "ignore" or not ev.raw:
            return
        from argtrace.frameworks import vllm

        try:
            value = vllm.parse_dataclass_json(ev.raw[-1])
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            return
        if not isinstance(value, dict):
            return
        fields = set(dataclass.get("fields") or ())
        unknown = sorted(k for k in value if k not in fields)
        if unknown:
            cls = str(dataclass.get("class") or "").rsplit(".", 1)[-1]
            hints = self._key_hints(spec.dest, unknown, fields)
            self.add(
                self.rules.PA_UNKNOWN_JSON_KEY,
                f"{ev.option}: {cls} in {self.schema.label} has no field {', '.join(map(repr, unknown))}; "
                "the key is dropped without a word" + (f" ({hints})" if hints else ""),
                at=at,
                setting=spec.dest,
            )

    def _key_hints(self, dest: str, unknown: Sequence[str], fields: set[str]) -> str:
        """For unknown config keys: the nearest field of this release, or the releases that have it."""
        hints = []
        for key in unknown:
            near = difflib.get_close_matches(key, sorted(fields), n=1)
            elsewhere = [
                s.version
                for s in self.history
                if s.version != self.schema.version
                and key in ((s.config_dataclass(dest) or {}).get("fields") or ())
            ]
            if elsewhere:
                hints.append(f"{key!r} is a field in {self.schema.framework} {', '.join(elsewhere)}")
            elif near:
                hints.append(f"{key!r}: did you mean {near[0]!r}?")
        return "; ".join(hints)

    def _json_string(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
        """A JSON flag the parser keeps as a string (SGLang's --json-model-override-args): the server
        decodes it later, after parsing, and stops there if it is not JSON."""
        text = ev.value
        if not text.strip() or UNKNOWN_PREFIX in text:
            return
        try:
            json.loads(text)
        except ValueError as exc:
            self.add(
                self.rules.PA_INVALID_JSON,
                f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc.msg} at column {exc.pos + 1}"
                if isinstance(exc, json.JSONDecodeError)
                else f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc}",
                at=at,
                setting=spec.dest,
            )
            # The message above is completed here so that both branches read the same.
            last = self.result.findings[-1]
            from dataclasses import replace

            self.result.findings[-1] = replace(
                last,
                message=last.message
                + "); the parser keeps the string and the server fails when it decodes it",
            )

    def _scrub(self, spec: OptionSpec, message: str) -> str:
        flag = spec.flag
        if flag and is_secret_flag(flag):
            return f"argument {flag}: invalid value (secret, not shown)"
        return redact_text(message)

    def _help_replacement(self, spec: OptionSpec) -> str | None:
        """The flag a deprecated option's own words point to ("Use --x instead", "renamed to --x")."""
        text = " ".join(str(t) for t in (spec.deprecation_message, spec.help) if isinstance(t, str))
        pattern = (
            r"(?i)(?:use|instead|renamed to|replaced by|in favou?r of|alias (?:of|for))\s+'?"
            r"(--[a-z0-9][a-z0-9._-]*)"
        )
        for ref in re.findall(pattern, text):
            ref = ref.rstrip(".")
            base = ref.split(".", 1)[0]
            if ref not in spec.option_strings and self.schema.option(base) is not None:
                return ref
        return None

    def _ambiguous_elsewhere(self, typed: str) -> str | None:
        for s in reversed(self.history):
            if s.version == self.schema.version:
                continue
            if s.option(typed) is None and len([o for o in s.option_strings if o.startswith(typed)]) > 1:
                return s.label
        return None

    def _removed_later(self, option: str | None) -> str | None:
        if not option:
            return None
        gone = [s for s in self.newer if s.option(option) is None]
        if not gone:
            return None
        first = gone[0]
        repl = _replacement(option, first, [self.schema, *self.newer])
        return (
            f"{option} works in {self.schema.label} but {first.label} no longer accepts it"
            + (f" (use {repl})" if repl else "")
            + "; the script breaks on upgrade"
        )

    def _choice_valid_in(self, spec: OptionSpec, value: Any) -> str | None:
        vals = value if isinstance(value, list) else [value]
        hits = []
        for s in self.history:
            if s.version == self.schema.version:
                continue
            other = s.option(spec.flag or "") if spec.flag else None
            if other is not None and other.choices is not None and all(v in other.choices for v in vals):
                hits.append(s.version)
        return ", ".join(hits) if hits else None

    def _json_duplicates(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
        for raw in ev.raw:
            dups: list[str] = []

            def hook(pairs: list[tuple[str, Any]], dups: list[str] = dups) -> dict[str, Any]:
                seen: set[str] = set()
                for k, _v in pairs:
                    if k in seen:
                        dups.append(k)
                    seen.add(k)
                return dict(pairs)

            try:
                json.loads(raw, object_pairs_hook=hook)
            except (ValueError, TypeError):
                continue
            if dups:
                self.add(
                    self.rules.PA_JSON_OVERRIDE,
                    f"{ev.option}: key(s) {', '.join(sorted(set(dups)))} appear twice in the JSON value; "
                    "the last one silently wins",
                    at=at,
                    setting=spec.dest,
                )

    def _setting(self, dest: str, events: list[Event]) -> None:
        stored = [e for e in events if e.stored]
        winner = stored[-1] if stored else events[-1]
        observations: list[Observation] = []
        shells: list[Observation] = []
        procs: list[Observation] = []
        # Every occurrence's shell words (an overridden one marked), then what the process and the parser
        # hold for the one that wins: a later occurrence shows as a change at the shell layer, where it
        # was written, not as a flip-flop between layers. Accumulating actions (append, count) keep all.
        accumulate = winner.kind in ("append", "append_const", "extend", "count")
        for ev in events:
            overridden = ev is not winner and not accumulate and ev.stored
            for obs_shell, obs_proc in self._word_observations(ev):
                if obs_shell is not None:
                    if overridden:
                        obs_shell = Observation(
                            **{**obs_shell.__dict__, "detail": {**obs_shell.detail, "overridden": True}}
                        )
                    shells.append(obs_shell)
                if accumulate or ev is winner or not ev.stored:
                    procs.append(obs_proc)
        observations.extend(shells)
        observations.extend(procs)
        value = self.outcome.namespace.get(dest, winner.value) if not self.fatal else winner.value
        known = not _contains_unknown(value)
        parser_obs = Observation(
            layer="parser",
            value=_jsonable(value),
            at=self.at(
                winner.option_tok
                if winner.option_tok is not None
                else (winner.value_toks[0] if winner.value_toks else None)
            ),
            known=known,
            reason=None if known else "built from a word that cannot be known statically",
            by=winner.option or dest,
            detail={"option": winner.typed or winner.option, "default": False},
        )
        invalid = any(err for ev in events for err in ev.errors) or self.outcome.exit_status != 0
        if invalid:
            parser_obs = Observation(
                **{**parser_obs.__dict__, "detail": {**parser_obs.detail, "rejected": True}}
            )
        observations.append(parser_obs)
        # the long option the user matched (in full), else the canonical one (for -tp and positionals)
        long = winner.option if winner.option and winner.option.startswith("--") else None
        flag = long or winner.spec.flag or winner.option or self.schema.flag_for_dest(dest)
        self.result.observations[dest] = (flag, observations)
        self.result.intended[dest] = self._intended(winner)
        if _json_valued(winner.spec, self.schema) or _is_config_json(winner):
            if isinstance(value, str) and value.lstrip().startswith("{"):
                try:
                    value = json.loads(value)
                except ValueError:
                    return
            self._inner_settings(dest, flag, winner, value)

    def _word_observations(self, ev: Event) -> list[tuple[Observation | None, Observation]]:
        server = self.server
        out: list[tuple[Observation | None, Observation]] = []
        idxs = list(ev.value_toks) or ([ev.option_tok] if ev.option_tok is not None else [])
        seen_src: set[int] = set()
        for i in idxs:
            tok = self.tok(i)
            if tok is None:
                continue
            text = tok.text
            if tok.via == "config":
                proc = Observation("process", text, at=tok.at, detail={"via": "config", "file": tok.at})
                out.append((None, proc))
                continue
            if tok.via == "dotted":
                # vLLM merged --flag.key words into this JSON; each key's words are in its own setting.
                proc = Observation(
                    "process", text, at=server.at, detail={"via": "dotted keys merged by vLLM"}
                )
                out.append((None, proc))
                continue
            for src in tok.src:
                if src in seen_src or not 0 <= src < len(server.argv):
                    continue
                seen_src.add(src)
                word = server.argv[src]
                wtext = word.text
                value = wtext
                if wtext is not None and i == ev.option_tok and "=" in wtext and ev.value_toks == [i]:
                    value = wtext.split("=", 1)[1]
                elif (
                    wtext is not None
                    and i != ev.option_tok
                    and ev.option_tok is not None
                    and src in self._src(ev.option_tok)
                    and "=" in wtext
                ):
                    value = wtext.split("=", 1)[1]
                shell = Observation(
                    "shell",
                    value,
                    at=word.origin.at,
                    known=word.known,
                    reason=None if word.known else (word.origin.reason or "cannot be known statically"),
                    detail={
                        "expansion": word.origin.expansion,
                        **({"word": wtext} if value != wtext else {}),
                        # a switch: the word is the flag itself, its value is the parser's
                        **({"flag_only": True} if not ev.value_toks else {}),
                    },
                )
                proc = Observation(
                    "process",
                    value,
                    at=server.at,
                    known=word.known,
                    reason=None if word.known else (word.origin.reason or "cannot be known statically"),
                    detail={"argv_index": src, **({"flag_only": True} if not ev.value_toks else {})},
                )
                out.append((shell, proc))
        return out

    def _intended(self, ev: Event) -> Any:
        if ev.kind in ("store_const", "store_true", "store_false", "BooleanOptionalAction", "count", "noop"):
            return ev.value if ev.stored else True
        raw: list[str | None] = []
        for i in ev.value_toks:
            tok = self.tok(i)
            if tok is None:
                continue
            if tok.text is None:
                raw.append(None)
            elif i == ev.option_tok and "=" in tok.text:
                raw.append(tok.text.split("=", 1)[1])
            else:
                raw.append(tok.text)
        if not raw:
            return ev.raw[0] if len(ev.raw) == 1 else (list(ev.raw) if ev.raw else None)
        if ev.spec.nargs in (None, "?") and len(raw) == 1:
            return raw[0]
        return raw

    def _inner_settings(self, dest: str, flag: str | None, winner: Event, value: Any) -> None:
        if not isinstance(value, dict):
            return
        dotted = {p.keys: p for p in self.prepared.dotted if p.flag == (winner.option or "")}
        for path, inner in _flatten(value):
            name = dest + "." + ".".join(path)
            part = dotted.get(tuple(path))
            obs: list[Observation] = []
            text = inner if isinstance(inner, str) else json.dumps(_jsonable(inner))
            if part is not None and part.src:
                word = self.server.argv[part.src[-1]] if part.src[-1] < len(self.server.argv) else None
                obs.append(
                    Observation(
                        "shell",
                        part.raw,
                        at=word.origin.at if word else None,
                        detail={"expansion": word.origin.expansion if word else None, "dotted": True},
                    )
                )
                obs.append(Observation("process", part.raw, at=self.server.at))
            else:
                wtok = self.tok(winner.value_toks[-1]) if winner.value_toks else None
                obs.append(
                    Observation(
                        "process",
                        text,
                        at=_at(self.server, wtok) if wtok and wtok.via == "config" else self.server.at,
                        detail={"from": flag},
                    )
                )
            obs.append(
                Observation(
                    "parser",
                    _jsonable(inner),
                    at=self.at(winner.option_tok),
                    by=flag,
                    detail={
                        "option": winner.typed or winner.option,
                        "default": False,
                        "json_key": ".".join(path),
                    },
                )
            )
            self.result.observations[name] = (f"{flag}.{'.'.join(path)}" if flag else None, obs)
            self.result.intended[name] = _jsonable(inner)

    def _duplicates(self, by_dest: dict[str, list[Event]]) -> None:
        rules = self.rules
        for dest, events in by_dest.items():
            stored = [
                e for e in events if e.stored and e.kind not in ("append", "append_const", "extend", "count")
            ]
            if len(stored) < 2:
                continue
            # vLLM's merged dotted keys are reported separately (PA021).
            if all(self.via(e.option_tok) == "dotted" for e in stored[1:]):
                continue
            winner = stored[-1]
            values = [self._intended(e) for e in stored]
            flag = winner.option or dest
            win_word = _word(self.server, self.tok(winner.option_tok))
            lost = stored[:-1]
            shown = ", ".join(
                f"{(e.typed or e.option)} {_show(flag, self._intended(e))}"
                if e.kind == "store"
                else (e.typed or "")
                for e in stored
            )
            same = all(v == values[-1] for v in values)
            caller = _from_caller(win_word) and not any(
                _from_caller(_word(self.server, self.tok(e.option_tok))) for e in lost
            )
            config = [e for e in stored if self.via(e.option_tok) == "config"]
            if caller:
                msg = (
                    f"{flag} is set by the script and again by the caller's arguments "
                    f"({win_word.origin.expansion if win_word else '$@'}): "
                    f"{shown}; the caller's {_show(flag, values[-1])} wins and the script's own value "
                    "is overridden"
                )
            elif not _from_caller(win_word) and any(
                _from_caller(_word(self.server, self.tok(e.option_tok))) for e in lost
            ):
                msg = (
                    f"{flag} comes from the caller's arguments and again from the script after them "
                    f"({shown}): the script's own {_show(flag, values[-1])} wins, so the caller cannot "
                    "override it"
                )
            elif config and len(config) < len(stored):
                msg = (
                    f"{flag} is set in the --config file and on the command line ({shown}); "
                    "the command line wins"
                )
            else:
                msg = (
                    f"{flag} is given {len(stored)} times ({shown}); argparse keeps the last, "
                    f"{_show(flag, values[-1])}"
                )
            severity = "info" if (same or (config and len(config) < len(stored))) else None
            self.add(
                rules.PA_DUPLICATE,
                msg,
                at=self.at(winner.option_tok),
                setting=dest,
                severity=severity,
                evidence=[
                    Evidence("shell", self.at(e.option_tok), e.typed or e.option or "") for e in stored
                ],
            )

    # -- leftovers: unrecognized words
    def _extras(self) -> None:
        extras = [i for i in self.outcome.extras if i >= 0]
        if not extras:
            return
        rules = self.rules
        i = 0
        consumed: set[int] = set()
        while i < len(extras):
            idx = extras[i]
            tok = self.tok(idx)
            if tok is None or tok.text is None or idx in consumed:
                i += 1
                continue
            text = tok.text
            if text.startswith("-") and len(text) > 1 and not _is_number(text):
                values = []
                j = i + 1
                while j < len(extras) and extras[j] == extras[j - 1] + 1:
                    nt = self.tok(extras[j])
                    if nt is None or ((nt.text or "x").startswith("-") and not _is_number(nt.text or "")):
                        break
                    values.append(extras[j])
                    consumed.add(extras[j])
                    j += 1
                self._unknown_flag(idx, values)
                i = j
                continue
            prev = self.tok(idx - 1)
            prev_ev = next((e for e in self.outcome.events if e.option_tok == idx - 1), None)
            if prev_ev is not None and prev_ev.kind in (
                "store_true",
                "store_false",
                "store_const",
                "BooleanOptionalAction",
                "noop",
            ):
                self.add(
                    rules.PA_NO_VALUE_EXPECTED,
                    f"{prev_ev.typed or prev_ev.option} takes no value, so {self._display(idx, text)!r} "
                    'is left over and argparse stops with "unrecognized arguments" (exit 2)',
                    at=self.at(idx),
                    setting=prev_ev.spec.dest,
                    fix=(
                        f"drop {self._display(idx, text)!r}"
                        + (
                            f" (to turn it off use {self._negative(prev_ev)})"
                            if text.lower() in ("false", "0", "no") and self._negative(prev_ev)
                            else ""
                        )
                    ),
                )
            else:
                what = f"after {prev.text}" if prev is not None and prev.text else "at the start"
                self.add(
                    rules.PA_UNRECOGNIZED,
                    f"{self._display(idx, text)!r} ({what}) is not a value of any flag: {self.schema.label} "
                    "rejects it "
                    'with "unrecognized arguments" (exit 2)',
                    at=self.at(idx),
                    setting=None,
                    fix="quote the value with the flag before it, or remove the stray word",
                )
            i += 1

    def _negative(self, ev: Event) -> str | None:
        if ev.kind == "BooleanOptionalAction":
            return next(iter(sorted(_negatives(ev.spec))), None)
        return None

    def _unknown_flag(self, idx: int, value_idxs: list[int]) -> None:
        rules = self.rules
        tok = self.tok(idx)
        assert tok is not None and tok.text is not None
        typed = tok.text
        flag = typed.split("=", 1)[0]
        shown_flag = (tok.original or typed).split("=", 1)[0]
        if self._secret_word(idx):
            # a credential that argparse could not take as --api-key's value: report it, never name a
            # setting after it
            self.add(
                rules.PA_UNRECOGNIZED,
                f"{mask(shown_flag)} (the word after a credential flag) is left over: the server refuses "
                'to start ("unrecognized arguments", exit 2)',
                at=self.at(idx),
                fix="attach a value that starts with '-' with '=' (--api-key=VALUE)",
            )
            return
        at = self.at(idx)
        schema = self.schema
        same = _known_in(self.history, flag)
        other = _known_in(self.others, flag)
        older = [s for s, _ in same if version_key(s.version) < version_key(schema.version)]
        newer = [s for s, _ in same if version_key(s.version) > version_key(schema.version)]
        if same:
            setting = same[-1][1].dest
        elif other:
            setting = other[-1][1].dest
        else:
            setting = _dest_guess(flag)
        repl = _replacement(flag, schema, self.history) if same else None
        # A single-dash spelling of a long option
        dashed = None
        if flag.startswith("-") and not flag.startswith("--"):
            cand = "-" + flag
            if schema.option(cand) is not None:
                dashed = cand
        underscored = None
        if "_" in flag and flag.startswith("--") and schema.option(flag.replace("_", "-")) is not None:
            underscored = flag.replace("_", "-")
        if dashed:
            self.add(
                rules.PA_SINGLE_DASH,
                f"{shown_flag} has a single hyphen; {schema.label} knows {dashed} and rejects {shown_flag} "
                'with "unrecognized arguments" (exit 2)',
                at=at,
                setting=schema.option(dashed).dest,  # type: ignore[union-attr]
                fix=f"write {dashed}",
            )
            setting = schema.option(dashed).dest  # type: ignore[union-attr]
        elif underscored:
            self.add(
                rules.PA_UNDERSCORE,
                f"{shown_flag}: {schema.framework} does not turn underscores into dashes; {schema.label} "
                f'rejects it with "unrecognized arguments" (exit 2); the flag is {underscored}',
                at=at,
                setting=schema.option(underscored).dest,  # type: ignore[union-attr]
                fix=f"write {underscored}",
            )
            setting = schema.option(underscored).dest  # type: ignore[union-attr]
        elif older and not newer:
            last = older[-1]
            msg = (
                f"{shown_flag} was accepted up to {last.label} but {schema.label} does not know it: "
                "the server "
                'refuses to start ("unrecognized arguments", exit 2)'
            )
            if repl:
                msg += f"; in {schema.label} the setting is {repl}"
            self.add(
                rules.PA_REMOVED,
                msg,
                at=at,
                setting=setting,
                fix=f"use {repl}" if repl else "remove the flag, or pin the older release",
            )
        elif newer:
            first = newer[0]
            msg = (
                f"{shown_flag} only exists from {first.label} on; {schema.label} rejects it with "
                '"unrecognized arguments" (exit 2)'
            )
            if repl:
                msg += f"; this release spells it {repl}"
            self.add(
                rules.PA_NOT_YET,
                msg,
                at=at,
                setting=setting,
                fix=f"use {repl}" if repl else f"upgrade to {first.version} or drop the flag",
            )
        elif other:
            equivalents = _equivalents(schema, self.others)
            eq = equivalents.get(flag)
            if eq == "--model" and self.server.entrypoint == "vllm serve":
                eq = "put the model as the first word after `vllm serve`"
            other_fw = other[-1][0].framework
            msg = (
                f"{shown_flag} is {_a(_fw_name(other_fw))} flag; {_fw_name(schema.framework)} rejects it "
                'with "unrecognized arguments" (exit 2)'
            )
            if eq and eq.startswith("-"):
                msg += f"; the {_fw_name(schema.framework)} equivalent is {eq}"
                fix = f"use {eq}"
            elif eq:
                msg += f"; in {_fw_name(schema.framework)}, {eq}"
                fix = eq if not eq.startswith("nothing") else "remove the flag"
            else:
                fix = f"find the {_fw_name(schema.framework)} setting for it"
            self.add(rules.PA_OTHER_FRAMEWORK, msg, at=at, setting=setting, fix=fix)
        else:
            near = _nearest(flag, schema)
            msg = (
                f"{shown_flag} is not a {schema.label} flag: the server refuses to start "
                '("unrecognized arguments", exit 2)'
            )
            if near:
                msg += f"; did you mean {near}?"
            self.add(rules.PA_UNRECOGNIZED, msg, at=at, setting=setting, fix=f"use {near}" if near else None)
        self.result.unknown_settings.add(setting)
        obs: list[Observation] = []
        value_words: list[tuple[int, str | None]] = []
        if "=" in typed:
            value_words.append((idx, typed.split("=", 1)[1]))
        for v in value_idxs:
            vt = self.tok(v)
            value_words.append((v, vt.text if vt is not None else None))
        src_tokens = [idx] if not value_idxs else value_idxs
        for t in src_tokens:
            word = _word(self.server, self.tok(t))
            if word is None:
                continue
            value = word.text
            if t == idx and "=" in (word.text or ""):
                value = (word.text or "").split("=", 1)[1]
            obs.append(
                Observation(
                    "shell",
                    value,
                    at=word.origin.at,
                    known=word.known,
                    reason=None if word.known else word.origin.reason,
                    detail={"expansion": word.origin.expansion},
                )
            )
        for t in src_tokens:
            word = _word(self.server, self.tok(t))
            if word is None:
                continue
            value = word.text
            if t == idx and "=" in (word.text or ""):
                value = (word.text or "").split("=", 1)[1]
            obs.append(
                Observation(
                    "process",
                    value,
                    at=self.server.at,
                    known=word.known,
                    detail={"rejected_by": schema.label},
                )
            )
        if setting not in self.result.observations:
            self.result.observations[setting] = (shown_flag, obs)
            vals = [v for _, v in value_words]
            self.result.intended[setting] = (vals[0] if len(vals) == 1 else vals) if vals else True

    # -- unknown words
    def _unknown_words(self) -> None:
        rules = self.rules
        for ev in self.outcome.events:
            for i in ev.value_toks:
                tok = self.tok(i)
                if tok is not None and tok.text is None:
                    word = _word(self.server, tok)
                    reason = (
                        word.origin.reason
                        if word is not None and word.origin.reason
                        else "cannot be known statically"
                    )
                    exp = word.origin.expansion if word is not None else None
                    self.add(
                        rules.PA_UNKNOWN_VALUE,
                        f"the value of {ev.option or ev.spec.dest} comes from {exp or 'a word'} "
                        f"({reason}): {ev.spec.dest} cannot be known before the server runs",
                        at=self.at(i),
                        setting=ev.spec.dest,
                    )
        for i in self.outcome.extras:
            tok = self.tok(i)
            if tok is not None and tok.text is None:
                word = _word(self.server, tok)
                exp = word.origin.expansion if word is not None else None
                self.add(
                    rules.PA_UNKNOWN_VALUE,
                    f"argv word {exp or ''} cannot be known statically and is not the value of a flag; "
                    "it may add flags this analysis cannot see",
                    at=self.at(i),
                )

    def _required(self) -> None:
        if self.outcome.help_exit or self.fatal:
            return
        unknown_words = any(
            (tok := self.tok(i)) is not None and tok.text is None for i in self.outcome.extras
        )
        for spec in (*self.schema.options, *self.schema.positionals):
            if spec.required and not any(ev.spec.dest == spec.dest for ev in self.outcome.events):
                name = spec.flag or spec.dest
                if unknown_words:
                    self.add(
                        self.rules.PA_REQUIRED,
                        f"{name} is required by {self.schema.label} and is not among the known words; "
                        "only a word that cannot be known statically could still provide it",
                        at=self.server.at,
                        setting=spec.dest,
                        severity="info",
                    )
                    continue
                self.add(
                    self.rules.PA_REQUIRED,
                    f"{name} is required by {self.schema.label} and is not given: argparse "
                    'stops with "the following arguments are required" (exit 2)',
                    at=self.server.at,
                    setting=spec.dest,
                    fix=f"add {name} VALUE",
                )

    def _dotted_overrides(self) -> None:
        """vLLM appends merged dotted keys at the end: an earlier whole-JSON value of the flag is replaced."""
        if not self.prepared.dotted:
            return
        flags = {p.flag for p in self.prepared.dotted}
        for flag in flags:
            events = [e for e in self.outcome.events if e.option == flag or (e.spec.flag == flag)]
            whole = [e for e in events if self.via(e.option_tok) != "dotted"]
            if whole and events and events[-1] not in whole:
                lost = whole[-1]
                self.add(
                    self.rules.PA_JSON_OVERRIDE,
                    f"{flag} is given as a whole JSON value and as dotted keys ({flag}.KEY): vLLM merges the "
                    f"dotted keys into a new JSON value appended at the end of argv, which replaces "
                    f"{_show(flag, lost.raw[0] if lost.raw else '')} entirely",
                    at=self.at(lost.option_tok),
                    setting=lost.spec.dest,
                    fix=f"put every key in one place: either the JSON value or {flag}.KEY words",
                )


def _json_valued(spec: OptionSpec, schema: Schema) -> bool:
    """A flag whose value is JSON: the schema says so (its type decodes JSON, or the framework's code
    ``json.loads`` the field), or a string flag named ``json_*`` / documented as JSON with a JSON default."""
    if spec.dest in schema.json_flags:
        return True
    if spec.type not in (None, "str"):
        return False
    if spec.dest.startswith("json_"):
        return True
    default = spec.default_value
    return bool(
        spec.help and "JSON" in spec.help and isinstance(default, str) and default.strip()[:1] in ("{", "[")
    )


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


def _is_config_json(ev: Event) -> bool:
    return isinstance(ev.value, dict)


def _flatten(value: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for k, v in value.items():
        path = (*prefix, str(k))
        if isinstance(v, dict) and v:
            out.extend(_flatten(v, path))
        else:
            out.append((path, v))
    return out
