"""The settings one parse yields: for every dest the words the shell gave, what the process received and
what the parser stored (the winning occurrence, overridden ones marked), the value the user intended, and
one setting per key of a JSON value.
"""

from __future__ import annotations

import json

from argtrace import safe_json
from argtrace.layers.parser.context import (
    ParseContext,
    _at,
)
from argtrace.layers.parser.json_values import _flatten, _is_config_json, _json_valued
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.values import _contains_unknown, _jsonable
from argtrace.model import Observation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def record_setting(ctx: ParseContext, dest: str, events: list[Event]) -> None:
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
        for obs_shell, obs_proc in word_observations(ctx, ev):
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
    value = ctx.outcome.namespace.get(dest, winner.value) if not ctx.fatal else winner.value
    known = not _contains_unknown(value)
    parser_obs = Observation(
        layer="parser",
        value=_jsonable(value),
        at=ctx.at(
            winner.option_tok
            if winner.option_tok is not None
            else (winner.value_toks[0] if winner.value_toks else None)
        ),
        known=known,
        reason=None if known else "built from a word that cannot be known statically",
        by=winner.option or dest,
        detail={"option": winner.typed or winner.option, "default": False},
    )
    invalid = any(err for ev in events for err in ev.errors) or ctx.outcome.exit_status != 0
    if invalid:
        parser_obs = Observation(**{**parser_obs.__dict__, "detail": {**parser_obs.detail, "rejected": True}})
    observations.append(parser_obs)
    # the long option the user matched (in full), else the canonical one (for -tp and positionals)
    long = winner.option if winner.option and winner.option.startswith("--") else None
    flag = long or winner.spec.flag or winner.option or ctx.schema.flag_for_dest(dest)
    ctx.result.observations[dest] = (flag, observations)
    ctx.result.intended[dest] = intended(ctx, winner)
    if _json_valued(winner.spec, ctx.schema) or _is_config_json(winner):
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:
                value = safe_json.loads(value)
            except ValueError:
                return
        inner_settings(ctx, dest, flag, winner, value)


def word_observations(ctx: ParseContext, ev: Event) -> list[tuple[Observation | None, Observation]]:
    server = ctx.server
    out: list[tuple[Observation | None, Observation]] = []
    idxs = list(ev.value_toks) or ([ev.option_tok] if ev.option_tok is not None else [])
    seen_src: set[int] = set()
    for i in idxs:
        tok = ctx.tok(i)
        if tok is None:
            continue
        text = tok.text
        if tok.via == "config":
            proc = Observation("process", text, at=tok.at, detail={"via": "config", "file": tok.at})
            out.append((None, proc))
            continue
        if tok.via in ("trl", "trl-default") and not tok.src:
            # a word TRL's build_command writes itself: its own flag, or a ScriptArguments default
            # (frameworks/trl_vllm_serve.py); the server sees it as given
            by = "TRL's default" if tok.via == "trl-default" else "written by TRL"
            proc = Observation("process", text, at=server.at, detail={"via": f"{by} ({tok.at})"})
            out.append((None, proc))
            continue
        if tok.via == "dotted":
            # vLLM merged --flag.key words into this JSON; each key's words are in its own setting.
            proc = Observation("process", text, at=server.at, detail={"via": "dotted keys merged by vLLM"})
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
                and src in ctx.src(ev.option_tok)
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


def intended(ctx: ParseContext, ev: Event) -> Any:
    if ev.kind in ("store_const", "store_true", "store_false", "BooleanOptionalAction", "count", "noop"):
        return ev.value if ev.stored else True
    raw: list[str | None] = []
    for i in ev.value_toks:
        tok = ctx.tok(i)
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


def inner_settings(ctx: ParseContext, dest: str, flag: str | None, winner: Event, value: Any) -> None:
    if not isinstance(value, dict):
        return
    dotted = {p.keys: p for p in ctx.prepared.dotted if p.flag == (winner.option or "")}
    for path, inner in _flatten(value):
        name = dest + "." + ".".join(path)
        part = dotted.get(tuple(path))
        obs: list[Observation] = []
        text = inner if isinstance(inner, str) else json.dumps(_jsonable(inner))
        if part is not None and part.src:
            word = ctx.server.argv[part.src[-1]] if part.src[-1] < len(ctx.server.argv) else None
            obs.append(
                Observation(
                    "shell",
                    part.raw,
                    at=word.origin.at if word else None,
                    detail={"expansion": word.origin.expansion if word else None, "dotted": True},
                )
            )
            obs.append(Observation("process", part.raw, at=ctx.server.at))
        else:
            wtok = ctx.tok(winner.value_toks[-1]) if winner.value_toks else None
            obs.append(
                Observation(
                    "process",
                    text,
                    at=_at(ctx.server, wtok) if wtok and wtok.via == "config" else ctx.server.at,
                    detail={"from": flag},
                )
            )
        obs.append(
            Observation(
                "parser",
                _jsonable(inner),
                at=ctx.at(winner.option_tok),
                by=flag,
                detail={
                    "option": winner.typed or winner.option,
                    "default": False,
                    "json_key": ".".join(path),
                },
            )
        )
        ctx.result.observations[name] = (f"{flag}.{'.'.join(path)}" if flag else None, obs)
        ctx.result.intended[name] = _jsonable(inner)
