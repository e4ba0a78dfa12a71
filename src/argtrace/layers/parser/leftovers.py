"""Words argparse could not place: a value after a switch, a stray word, and unknown flags, explained by
the other releases and the other framework (removed, not yet added, the other framework's flag, a single dash,
underscores, a near spelling); each unknown flag still becomes a setting that never arrived.
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.frameworks.schema import version_key
from argtrace.layers.parser.build import _negatives
from argtrace.layers.parser.context import (
    ParseContext,
    _a,
    _fw_name,
    _is_number,
    _word,
)
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.release_view import _dest_guess
from argtrace.layers.parser.releases import _equivalents, _nearest, _replacement, sets
from argtrace.model import Evidence, Observation, Word
from argtrace.redact import mask

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.entrypoints import EntryPoint


# -- leftovers: unrecognized words
def extras(ctx: ParseContext) -> None:
    extras = [i for i in ctx.outcome.extras if i >= 0]
    if not extras:
        return
    # (imported here: a launch every word of which its parser took never needs it)
    from argtrace.layers.parser.spaced_words import holds_flag, spaced_word

    rules = ctx.rules
    i = 0
    consumed: set[int] = set()
    while i < len(extras):
        idx = extras[i]
        tok = ctx.tok(idx)
        if tok is None or tok.text is None or idx in consumed:
            i += 1
            continue
        text = tok.text
        if spaced_word(ctx, idx, text):
            i += 1
            continue
        if text.startswith("-") and len(text) > 1 and not _is_number(text):
            values = []
            j = i + 1
            while j < len(extras) and extras[j] == extras[j - 1] + 1:
                nt = ctx.tok(extras[j])
                if nt is None or ((nt.text or "x").startswith("-") and not _is_number(nt.text or "")):
                    break
                if holds_flag(ctx, nt.text):  # a flag of its own, glued to a blank (spaced_words.py)
                    break
                values.append(extras[j])
                consumed.add(extras[j])
                j += 1
            unknown_flag(ctx, idx, values)
            i = j
            continue
        prev = ctx.tok(idx - 1)
        prev_ev = next((e for e in ctx.outcome.events if e.option_tok == idx - 1), None)
        if prev_ev is not None and prev_ev.kind in (
            "store_true",
            "store_false",
            "store_const",
            "BooleanOptionalAction",
            "noop",
        ):
            ctx.add(
                rules.PA_NO_VALUE_EXPECTED,
                f"{prev_ev.typed or prev_ev.option} takes no value, so {ctx.display(idx, text)!r} "
                'is left over and argparse stops with "unrecognized arguments" (exit 2)',
                at=ctx.at(idx),
                setting=prev_ev.spec.dest,
                fix=(
                    f"drop {ctx.display(idx, text)!r}"
                    + (
                        f" (to turn it off use {negative(ctx, prev_ev)})"
                        if text.lower() in ("false", "0", "no") and negative(ctx, prev_ev)
                        else ""
                    )
                ),
            )
        else:
            what = f"after {prev.text}" if prev is not None and prev.text else "at the start"
            taken = _taken_slot(ctx, idx)
            if taken is not None and not ctx.prepared.known_args:
                flag, word_idx, dest = taken
                word_tok = ctx.tok(word_idx)
                word = ctx.display(word_idx, word_tok.text if word_tok is not None and word_tok.text else "")
                ctx.add(
                    rules.PA_UNRECOGNIZED,
                    f"{ctx.display(idx, text)!r} ({what}) is not a value of any flag: {ctx.schema.label} "
                    f"does not know {flag}, so argparse took the word after it, {word!r}, as {dest}, and "
                    f'{ctx.display(idx, text)!r} has no place left: "unrecognized arguments" (exit 2)',
                    at=ctx.at(idx),
                    setting=None,
                    fix=f"remove {flag} together with {word!r}; {ctx.display(idx, text)!r} is {dest} again",
                )
                i += 1
                continue
            repeated = _repeated_subcommand(ctx, idx)
            if repeated is not None and not ctx.prepared.known_args:
                word, dest = repeated
                shown = ctx.display(idx, text)
                ctx.add(
                    rules.PA_UNRECOGNIZED,
                    f"{shown!r} ({what}) is not a value of any flag: {word!r} is written twice "
                    f"({ctx.server.entrypoint} {word} ...), so argparse took the second {word!r} as {dest}, "
                    f'and {shown!r} has no place left: "unrecognized arguments" (exit 2)',
                    at=ctx.at(idx),
                    setting=None,
                    fix=f"write {word!r} once ({ctx.server.entrypoint} {shown} ...); {shown!r} is {dest}"
                    " again",
                )
                i += 1
                continue
            if ctx.prepared.known_args:
                ctx.add(
                    rules.PA_UNRECOGNIZED,
                    f"{ctx.display(idx, text)!r} ({what}) is not a value of any flag: "
                    f"{ctx.server.entrypoint} parses with parse_known_args, which drops it without an error",
                    at=ctx.at(idx),
                    setting=None,
                    fix="quote the value with the flag before it, or remove the stray word",
                )
                i += 1
                continue
            ctx.add(
                rules.PA_UNRECOGNIZED,
                f"{ctx.display(idx, text)!r} ({what}) is not a value of any flag: {ctx.schema.label} "
                "rejects it "
                'with "unrecognized arguments" (exit 2)',
                at=ctx.at(idx),
                setting=None,
                fix="quote the value with the flag before it, or remove the stray word",
            )
        i += 1


def _taken_slot(ctx: ParseContext, idx: int) -> tuple[str, int, str] | None:
    """A positional filled by the word right after a flag argparse did not know, with ``idx`` a later word
    left over: (the flag, the word's token index, the positional's dest).

    argparse marks an unknown ``--flag`` as an option and leaves it over on its own; the word after it is
    then a plain argument, and the next positional slot takes it (``vllm serve --task embed ... MODEL``:
    model_tag becomes 'embed', MODEL is left over; argparse's _parse_known_args, consume_positionals).
    """
    extras = {i for i in ctx.outcome.extras if i >= 0}
    for ev in ctx.outcome.events:
        if ev.option is not None or not ev.value_toks:
            continue
        first = ev.value_toks[0]
        before = ctx.tok(first - 1)
        if first >= idx or first - 1 not in extras or before is None or not before.text:
            continue
        flag = before.text.split("=", 1)[0]
        if flag.startswith("-") and "=" not in before.text and not _is_number(flag) and ctx.tok(first):
            return flag, first, ev.spec.dest
    return None


def _repeated_subcommand(ctx: ParseContext, idx: int) -> tuple[str, str] | None:
    """(the subcommand, the positional's dest) when the first word the parser gets repeats the subcommand
    that chose it (``vllm serve serve MODEL``), filled a positional, and ``idx`` is a later word left over.

    The console script consumes the first ``serve`` to pick its subparser; the second is an ordinary word, so
    the subparser's first positional (``model_tag``) takes it and the model written after it has no slot
    (argparse's _parse_known_args, consume_positionals)."""
    start = ctx.server.server_args_start
    if start < 1 or start > len(ctx.server.argv):
        return None
    word = ctx.server.argv[start - 1].text
    if not word or not ctx.server.entrypoint.endswith(" " + word):
        return None
    for ev in ctx.outcome.events:
        if ev.option is not None or not ev.value_toks or ev.value_toks[0] != 0 or idx <= 0:
            continue
        first = ctx.tok(0)
        if first is not None and first.text == word:
            return word, ev.spec.dest
    return None


def _said_replacement(ctx: ParseContext, flag: str) -> str:
    """``; its deprecation message said to use X instead (...);`` when the release line's own deprecation
    message named a replacement the analysed release has (frameworks/flag_replacements.py), else nothing."""
    from argtrace.frameworks.flag_replacements import deprecation_replacement

    said = deprecation_replacement(ctx.schema.framework, flag)
    if said is None or ctx.schema.option(said.use) is None:
        return ""
    return f"; its deprecation message said to use {said.use} instead ({said.said});"


def _forwarded_key(ctx: ParseContext, flag: str) -> tuple[str, str] | None:
    """(``--config.key``, where it was said) when the releases that took the deprecated ``flag`` passed its
    value on to a key of another option the analysed release has (frameworks/flag_replacements.py:
    ``--num-redundant-experts`` into ``--eplb-config``'s ``num_redundant_experts``), else None."""
    from argtrace.frameworks.flag_replacements import forwarded_into

    went = forwarded_into(ctx.schema.framework, flag)
    if went is None or ctx.schema.option(went.into) is None:
        return None
    return f"{went.into}.{went.key}", went.said


def _positional_after(ctx: ParseContext, idx: int) -> tuple[str, str] | None:
    """(the word, the positional's dest) when the word right after the unknown flag at ``idx`` filled a
    positional slot (argparse leaves an unknown option over alone; the word after it is a plain argument)."""
    for ev in ctx.outcome.events:
        if ev.option is None and ev.value_toks and ev.value_toks[0] == idx + 1:
            tok = ctx.tok(idx + 1)
            if tok is not None and tok.text:
                return ctx.display(idx + 1, tok.text), ev.spec.dest
    return None


def negative(ctx: ParseContext, ev: Event) -> str | None:
    if ev.kind == "BooleanOptionalAction":
        return next(iter(sorted(_negatives(ev.spec))), None)
    return None


def unknown_flag(ctx: ParseContext, idx: int, value_idxs: list[int]) -> None:
    # the tables only an unknown word needs (entry points, the other framework's names, plugins): loaded
    # here, not by every check that has none (issue 18)
    from argtrace.frameworks.entrypoints import other_entrypoints_taking
    from argtrace.frameworks.feature_pairs import resolve_flag, same_feature_in
    from argtrace.frameworks.plugins import plugin_finding, plugin_flag
    from argtrace.layers.parser.fork_flags import foreign_variables, fork_flag_message

    rules = ctx.rules
    tok = ctx.tok(idx)
    assert tok is not None and tok.text is not None
    typed = tok.text
    flag = typed.split("=", 1)[0]
    shown_flag = (tok.original or typed).split("=", 1)[0]
    if ctx.secret_word(idx):
        # a credential that argparse could not take as --api-key's value: report it, never name a
        # setting after it
        ctx.add(
            rules.PA_UNRECOGNIZED,
            f"{mask(shown_flag)} (the word after a credential flag) is left over: the server refuses "
            'to start ("unrecognized arguments", exit 2)',
            at=ctx.at(idx),
            fix="attach a value that starts with '-' with '=' (--api-key=VALUE)",
        )
        return
    at = ctx.at(idx)
    schema = ctx.schema
    lacked = schema.option(flag)
    lacks = ctx.prepared.without
    if ctx.server.entrypoint == "dynamo.vllm" and lacked is not None and lacked.option_strings[0] in lacks:
        # Dynamo hands the engine's words to AsyncEngineArgs' parser alone (frameworks/dynamo.py)
        ctx.add(
            rules.PA_UNRECOGNIZED,
            f"{shown_flag} is a `vllm serve` frontend option; dynamo.vllm passes the words it does not "
            "take itself to vLLM's engine parser (AsyncEngineArgs), which does not know it: the worker "
            'refuses to start ("unrecognized arguments", exit 2)',
            at=at,
            setting=lacked.dest,
            fix="remove the flag (the Dynamo frontend serves the API)",
        )
        return
    # the releases the finding names, from the flag -> releases index (not every bundled schema)
    same = ctx.releases.knowing(flag)
    other = ctx.releases.knowing_elsewhere(flag)
    abbreviates = None  # the other framework's option its parser expands ``flag`` to (allow_abbrev)
    if not same and not other and not schema.variant and flag.startswith("--"):
        resolved = resolve_flag("vllm" if schema.framework == "sglang" else "sglang", flag)
        if resolved is not None and resolved[1] != flag:
            abbreviates = resolved[1]
            other = ctx.releases.knowing_elsewhere(abbreviates)
    older = [s for s, _ in same if version_key(s.version) < version_key(schema.version)]
    newer = [s for s, _ in same if version_key(s.version) > version_key(schema.version)]
    if same:
        setting = same[-1][1].dest
    elif other:
        setting = other[-1][1].dest
    else:
        setting = _dest_guess(flag)
    repl = _replacement(flag, schema, [s for s, _ in same]) if same else None
    # A single-dash spelling of a long option
    dashed = None
    if flag.startswith("-") and not flag.startswith("--"):
        cand = "-" + flag
        if schema.option(cand) is not None:
            dashed = cand
    underscored = None
    if "_" in flag and flag.startswith("--") and schema.option(flag.replace("_", "-")) is not None:
        underscored = flag.replace("_", "-")

    plugin = plugin_flag(schema.framework, flag) if flag.startswith("--") else None
    # the words only a plugin's flag needs (a command of 40,000 words repeating an unknown flag built this
    # list once per occurrence: 3 s, the fuzzers of session 29)
    argv_words = [w.text or "" for w in ctx.server.argv] if plugin is not None else []

    def known_elsewhere(rule: Any, msg: str, renamed: str, otherwise: str) -> None:
        """The flag another release knows: a replacement in the analysed one is named, and is the fix."""
        if repl:
            msg += f"; {renamed} {repl}"
        ctx.add(rule, msg, at=at, setting=setting, fix=f"use {repl}" if repl else otherwise)

    if ctx.prepared.known_args:
        # KServe's huggingfaceserver: parse_known_args keeps what it does not know aside and starts
        spelled = underscored or dashed
        found = schema.option(spelled) if spelled else None
        setting = found.dest if found is not None else setting
        ctx.add(
            rules.PA_UNRECOGNIZED,
            f"{shown_flag} is not an option of {ctx.server.entrypoint}'s parser (KServe's options and "
            f"{schema.label}'s, without their underscore-to-dash rewrite): it parses with parse_known_args, "
            "which drops the word without an error, so the value is lost"
            + (f"; the flag is {spelled}" if spelled else ""),
            at=at,
            setting=setting,
            fix=f"write {spelled}" if spelled else "remove the flag",
        )
    elif plugin is not None and (
        plugin.trigger in argv_words or not (same or other or dashed or underscored)
    ):
        # a plugin's flag (frameworks/plugins.py, generated from its wheels): name the plugin, not "remove it"
        msg, fix = plugin_finding(plugin, shown_flag, schema.label, schema.version, argv_words)
        ctx.result.findings.append(
            rules.PA_UNRECOGNIZED.finding(
                msg, at=at, setting=setting, fix=fix, severity="warning", basis="assumed"
            )
        )
    elif dashed:
        ctx.add(
            rules.PA_SINGLE_DASH,
            f"{shown_flag} has a single hyphen; {schema.label} knows {dashed} and rejects {shown_flag} "
            'with "unrecognized arguments" (exit 2)',
            at=at,
            setting=schema.option(dashed).dest,  # type: ignore[union-attr]
            fix=f"write {dashed}",
        )
        setting = schema.option(dashed).dest  # type: ignore[union-attr]
    elif underscored:
        ctx.add(
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
        follower = _positional_after(ctx, idx) if not value_idxs else None
        said = _said_replacement(ctx, flag)
        went = None if repl or follower or said else _forwarded_key(ctx, flag)
        if went is not None:
            # no message named a replacement, but the releases that took the flag passed its value on to
            # another option's key: that key, written with the same value, is the fix (vllm PR#54880)
            msg += f"; the releases that took it passed its value on to {went[0]} ({went[1]})"
        known_elsewhere(
            rules.PA_REMOVED,
            msg
            + (
                f"; argparse then reads the word after it, {follower[0]!r}, as {follower[1]}"
                if follower
                else ""
            ),
            f"in {schema.label} the setting is",
            f"write {went[0]}"
            if went is not None
            else (f"remove the flag and {follower[0]!r} after it" if follower else "remove the flag")
            + (said or ",")
            + " or pin the older release",
        )
    elif older:
        # known before and again after the analysed release: it was dropped, then brought back
        msg = (
            f"{shown_flag} was accepted up to {older[-1].label} and again from {newer[0].label} on, but "
            f'{schema.label} does not know it: the server refuses to start ("unrecognized arguments", '
            "exit 2)"
        )
        known_elsewhere(
            rules.PA_REMOVED,
            msg,
            f"in {schema.label} the setting is",
            f"remove the flag, or run {newer[0].version}",
        )
    elif newer:
        first = newer[0]
        msg = (
            f"{shown_flag} only exists from {first.label} on; {schema.label} rejects it with "
            '"unrecognized arguments" (exit 2)'
        )
        known_elsewhere(
            rules.PA_NOT_YET, msg, "this release spells it", f"upgrade to {first.version} or drop the flag"
        )
    elif other:
        equivalents = _equivalents(schema, [s for s, _ in other])
        eq = equivalents.get(abbreviates or flag)
        if eq == "--model" and ctx.server.entrypoint == "vllm serve":
            eq = "put the model as the first word after `vllm serve`"
        other_fw = other[-1][0].framework
        msg = (
            f"{shown_flag} is {_a(_fw_name(other_fw))} flag"
            + (f" (its parser takes it for {abbreviates})" if abbreviates else "")
            + f'; {_fw_name(schema.framework)} rejects it with "unrecognized arguments" (exit 2)'
        )
        if eq and eq.startswith("-"):
            msg += f"; the {_fw_name(schema.framework)} equivalent is {eq}"
            fix = f"use {eq}"
        elif eq:
            msg += f"; in {_fw_name(schema.framework)}, {eq}"
            fix = eq if not eq.startswith("nothing") else "remove the flag"
        elif (
            (pair := same_feature_in(schema.framework, other[-1][1].dest))
            and schema.option(pair.flags[0])
            # a pair's flag turns its feature on: not what a spelling that turns the other's off means
            and sets(other[-1][1], abbreviates or flag) is not False
        ):
            # a generated pair (the two parsers' names and help texts): a hint, so not the fix by itself
            msg += (
                f"; {_fw_name(schema.framework)}'s {pair.flags[0]} may set the same feature (a pair read "
                f"from the two parsers' names and help texts, cosine {pair.cosine:.2f}, not checked)"
            )
            fix = f"remove the flag, or use {pair.flags[0]} if it is the same feature"
        else:
            # no flag of this framework does the same, as far as the generated equivalents table knows
            fix = f"remove the flag (argtrace knows no {_fw_name(schema.framework)} flag that does the same)"
        ctx.add(rules.PA_OTHER_FRAMEWORK, msg, at=at, setting=setting, fix=fix)
    elif takers := other_entrypoints_taking(schema.framework, ctx.server.entrypoint, flag):
        # the framework knows the flag, but another of its programs does, not the one launched (vllm#2909)
        setting = _dest_of(takers, flag) or setting
        _another_entrypoints_flag(ctx, shown_flag, flag, takers, at, setting)
    elif flag.startswith("---") and schema.option("--" + flag.lstrip("-")) is not None:
        # extra hyphens (vllm-project/recipes PR#90's `----limit-mm-per-prompt.video`): the word as typed
        # with two, keeping a dotted key or `=VALUE` after the flag (the nearest flag alone would drop them)
        argv_word = _word(ctx.server, tok)
        original = (argv_word.text if argv_word is not None else None) or tok.original or typed
        corrected = "--" + original.lstrip("-")
        setting = schema.option("--" + flag.lstrip("-")).dest  # type: ignore[union-attr]
        ctx.add(
            rules.PA_UNRECOGNIZED,
            f"{shown_flag} has {len(flag) - len(flag.lstrip('-'))} hyphens; {schema.label} knows "
            f'--{flag.lstrip("-")} and rejects {shown_flag} with "unrecognized arguments" (exit 2)',
            at=at,
            setting=setting,
            fix=f"write {corrected.split('=', 1)[0]}",
        )
    elif flag.startswith("--") and (foreign := foreign_variables(ctx.server, ctx.releases.history)):
        # no release knows it, on a launch written for a vendor build (layers/parser/fork_flags.py)
        msg, fix = fork_flag_message(shown_flag, schema, foreign)
        evidence = [Evidence("process", ctx.server.env[n].origin.at or ctx.server.at, n) for n in foreign[:3]]
        ctx.add(rules.PA_FORK_FLAG, msg, at=at, setting=setting, fix=fix, evidence=evidence, basis="assumed")
    else:
        near = _nearest(flag, schema)
        msg = (
            f"{shown_flag} is not a {schema.label} flag: the server refuses to start "
            '("unrecognized arguments", exit 2)'
        )
        if near:
            msg += f"; did you mean {near}?"
        # no flag of the release is plausibly the same feature (releases.same_feature): offering the nearest
        # spelling anyway would name another feature
        fix = f"use {near}" if near else f"remove the flag (no {schema.label} flag is spelled like it)"
        ctx.add(rules.PA_UNRECOGNIZED, msg, at=at, setting=setting, fix=fix)
    ctx.result.unknown_settings.add(setting)
    obs: list[Observation] = []
    value_words: list[tuple[int, str | None]] = []
    if "=" in typed:
        value_words.append((idx, typed.split("=", 1)[1]))
    for v in value_idxs:
        vt = ctx.tok(v)
        value_words.append((v, vt.text if vt is not None else None))
    src_tokens = [idx] if not value_idxs else value_idxs
    words: list[tuple[Word, str | None]] = []  # each value word, its value (after `=` in `--flag=v`)
    for t in src_tokens:
        word = _word(ctx.server, ctx.tok(t))
        if word is None:
            continue
        value = word.text
        if t == idx and "=" in (word.text or ""):
            value = (word.text or "").split("=", 1)[1]
        words.append((word, value))
    for word, value in words:
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
    for word, value in words:
        obs.append(
            Observation(
                "process",
                value,
                at=ctx.server.at,
                known=word.known,
                detail={"rejected_by": schema.label},
            )
        )
    if setting not in ctx.result.observations:
        ctx.result.observations[setting] = (shown_flag, obs)
        vals = [v for _, v in value_words]
        ctx.result.intended[setting] = (vals[0] if len(vals) == 1 else vals) if vals else True


def _dest_of(takers: Sequence[tuple[EntryPoint, tuple[str, ...]]], flag: str) -> str | None:
    """The flag's dest in the newest release of the first main-parser entry point that takes it (the
    schema has it); None for an entry point without a schema of its own (diffusion, router)."""
    from argtrace.frameworks.schema import SchemaError, load_schema

    for ep, releases in takers:
        if ep.name in ("vllm serve", "vllm.entrypoints.openai.api_server", "sglang.launch_server"):
            try:
                spec = load_schema(ep.framework, releases[-1]).option(flag)
            except SchemaError:
                return None
            return spec.dest if spec is not None else None
    return None


def _another_entrypoints_flag(
    ctx: ParseContext,
    shown_flag: str,
    flag: str,
    takers: Sequence[tuple[EntryPoint, tuple[str, ...]]],
    at: str | None,
    setting: str,
) -> None:
    """PA001 for a flag no release of the launched entry point takes but another entry point of the same
    framework does: the launched one refuses it (its parser's ``parse_args``, generated), or drops it (a
    ``parse_known_args`` parser), and the fix names the program that takes it."""
    from argtrace.frameworks.entrypoints import commands_taking, describe_span, entrypoint

    schema = ctx.schema
    here = entrypoint(ctx.server.entrypoint or "")
    name = f"`{here.command}`" if here is not None else f"`{ctx.server.entrypoint}`"
    if here is not None and any(ep.command.startswith(here.command + " (") for ep, _ in takers):
        # `sglang serve` is two parsers: the one launched is the LLM server's (--model-type llm, or a model
        # argtrace takes for an LLM)
        name = f"`{here.command}`'s LLM server"
    if here is not None and here.releases:
        span = describe_span(schema.framework, here.releases)
        scope = f"in {schema.framework} {schema.version} nor in any bundled release where it parses ({span})"
    else:
        scope = f"in {schema.framework} {schema.version}"
    if here is not None and not here.refuses_unknown:
        what = f"it parses with {here.parse}, which drops the word without an error, so the value is lost"
    else:
        how = here.parse if here is not None else "parse_args"
        what = (
            f'its parser ({how}) refuses it: the server refuses to start ("unrecognized arguments", exit 2)'
        )
    taken = commands_taking(takers)
    msg = f"{shown_flag} is not an option of {name} {scope}: {what}; {flag} is taken by {taken}"
    here_command = here.command if here is not None else str(ctx.server.entrypoint)
    same_models = [(ep, r) for ep, r in takers if not ep.models]
    if same_models:
        first = same_models[0][0]
        also = [ep.command for ep, r in same_models[1:] if r == same_models[0][1]]
        either = f" (or {also[0]})" if also else ""
        fix = f"start {first.command}{either}, whose parser takes {flag}, instead of {here_command}"
    else:
        # the program that takes it serves other models (SGLang's diffusion server): not a switch to offer
        ep = takers[0][0]
        fix = f"remove the flag (for a {ep.models} model, {ep.command.split(' (')[0]} takes it)"
    ctx.add(ctx.rules.PA_UNRECOGNIZED, msg, at=at, setting=setting, fix=fix)
