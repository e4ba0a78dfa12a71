"""``sglang serve``'s diffusion backend: which server gets the words, and which words that server refuses.

``sglang serve`` (sglang/cli/serve.py) runs the diffusion server for a diffusion model (from 0.5.5, the
first release with sglang/multimodal_gen); from 0.5.10 it also removes ``--model-type X`` and runs the
diffusion server when X is ``diffusion``, the LLM server when it is ``llm``. With no override it asks the
model (``get_is_diffusion_model``: the diffusion registry, a local directory's model_index.json, the Hub)
and falls back to the LLM server. argtrace cannot read the model, so without an override it takes the
diffusion backend when the words include an option only the diffusion server has (an assumption, said in
a PA028 note). The diffusion server parses with its own parser (``parse_known_args``); from 0.5.10
``ServerArgs.from_cli_args`` refuses every word left over except its dynamic per-component options, before
that it ignores them (the value is lost without an error).

The options per release are generated data (``data/sglang_diffusion_options.json``,
``scripts/gen_sglang_diffusion_options.py``, read from every release's wheel). A release that is not in
it (a post-release between two read) uses the nearest older one read; its refusal of an option a newer
release read takes is one side only: such a PA001 is a note naming both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

from argtrace.frameworks.argv import ArgToken, PreparedArgv
from argtrace.package_data import package_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.schema import Schema
    from argtrace.model import ServerCommand

# The parser section's note that says the words went to the diffusion server (the resolution layer reads it).
DIFFUSION_NOTE = "sglang serve: the diffusion server"

_NO_VALUE = ("_StoreTrueAction", "_StoreFalseAction", "_StoreConstAction", "_CountAction", "_HelpAction")


@dataclass(frozen=True)
class DiffusionTable:
    """The diffusion server's parser of one release read (``release``)."""

    release: str
    options: dict[str, dict[str, Any]]
    prefixes: tuple[str, ...]
    suffixes: tuple[str, ...]
    # from_cli_args stops on words left over (0.5.10+); before, it ignores them
    refuses_unknown: bool = True
    # `sglang serve` removes --model-type X before any parser (0.5.10+); before, the word reaches one
    model_type_override: bool = True


@dataclass
class DiffusionCheck:
    """The words the diffusion server refuses (index into the words, the word) and what was consumed."""

    refused: list[tuple[int, str]] = field(default_factory=list)


@lru_cache(maxsize=1)
def _releases() -> dict[str, Any]:
    """``{release: {..., "options": {flag: entry}}}`` rebuilt from the file, which stores each option once
    per distinct entry with the spans of ``release_order`` that have it."""
    text = package_file("frameworks/data/sglang_diffusion_options.json").read_text(encoding="utf-8")
    data = json.loads(text)
    order: list[str] = data["release_order"]
    releases: dict[str, Any] = {v: {**data["releases"][v], "options": {}} for v in order}
    for flag, variants in data["options"].items():
        for entry, spans in variants:
            for start, count in spans:
                for version in order[start : start + count]:
                    releases[version]["options"][flag] = entry
    return releases


def release_data() -> dict[str, Any]:
    """``{release: its record with "options" rebuilt}`` for every release read, oldest first (read-only)."""
    return _releases()


def table_for(version: str) -> DiffusionTable | None:
    """The table of ``version`` or of the nearest older release read; None before the first one read."""
    from argtrace.frameworks.schema import version_key

    own = _releases().get(version)
    if own is not None and own.get("serve_dispatch"):
        return _table(version, own)
    best: str | None = None
    for release, data in _releases().items():
        if not data.get("serve_dispatch"):
            continue
        if version_key(release) <= version_key(version) and (
            best is None or version_key(release) > version_key(best)
        ):
            best = release
    if best is None:
        return None
    return _table(best, _releases()[best])


def _table(release: str, data: dict[str, Any]) -> DiffusionTable:
    return DiffusionTable(
        release,
        dict(data["options"]),
        tuple(data.get("dynamic_prefixes", ())),
        tuple(data.get("dynamic_suffixes", ())),
        bool(data.get("refuses_unknown", True)),
        bool(data.get("model_type_override", True)),
    )


def serve_removes_model_type(version: str) -> bool:
    """Whether ``sglang serve`` of ``version`` takes ``--model-type`` out before any parser sees it (read
    from its serve.py with the diffusion options); True where no release at or before it was read."""
    table = table_for(version)
    return table is None or table.model_type_override


def newer_takers(table: DiffusionTable, version: str, name: str) -> list[str]:
    """The releases read after ``version`` whose diffusion server takes the option ``name`` that ``table``
    refuses. When ``table`` is the nearest older release read, standing in for ``version``, a release
    between the two may follow either side, so a refusal read from the older one alone is no verdict on it;
    when it is ``version``'s own, they are the upgrade that has the option."""
    from argtrace.frameworks.schema import version_key

    out = []
    for release, data in sorted(_releases().items(), key=lambda kv: version_key(kv[0])):
        if not data.get("serve_dispatch") or version_key(release) <= version_key(version):
            continue
        newer = _table(release, data)
        if _match(newer, name) is not None or _dynamic(newer, name):
            out.append(release)
    return out


def later_releases(release: str) -> list[str]:
    """``release`` and every release read after it that dispatches to the diffusion server, oldest first."""
    from argtrace.frameworks.schema import version_key

    return [
        r
        for r, data in sorted(_releases().items(), key=lambda kv: version_key(kv[0]))
        if data.get("serve_dispatch") and version_key(r) >= version_key(release)
    ]


def older_refusals(table: DiffusionTable, words: list[str | None]) -> dict[str, list[str]]:
    """The words a release read before ``table``'s refuses, each under the newest such release (the one
    a downgrade meets first): ``{release: [word, ...]}``."""
    from argtrace.frameworks.schema import version_key

    newest: dict[str, str] = {}
    for release, data in sorted(_releases().items(), key=lambda kv: version_key(kv[0])):
        if not data.get("serve_dispatch") or version_key(release) >= version_key(table.release):
            continue
        for _i, word in check_words(_table(release, data), words).refused:
            newest[word] = release
    out: dict[str, list[str]] = {}
    for word, release in newest.items():
        out.setdefault(release, []).append(word)
    return dict(sorted(out.items(), key=lambda kv: version_key(kv[0])))


def only_diffusion(
    table: DiffusionTable, words: list[str | None], llm_options: set[str], llm_abbrev: bool = True
) -> list[str]:
    """Options in ``words`` that the diffusion parser has and the LLM server's parser does not take. The LLM
    server's argparse takes a unique prefix of a long option (``allow_abbrev``): ``--dp`` is its
    ``--dp-size`` (the DeepSeek-V4 recipe's ``sglang serve ... --dp 16``), so it does not make the launch a
    diffusion model's."""
    found: list[str] = []
    for word in words:
        if word is None or not word.startswith("--"):
            continue
        name = word.split("=", 1)[0]
        if name not in table.options or name in llm_options or name in found:
            continue
        if llm_abbrev and len([o for o in llm_options if o.startswith(name) and o.startswith("--")]) == 1:
            continue
        found.append(name)
    return found


def only_diffusion_choices(
    table: DiffusionTable, words: list[str | None], llm_choices: dict[str, tuple[Any, ...]]
) -> list[str]:
    """``--option value`` pairs in ``words`` whose value is a choice of the diffusion parser's option and
    not of the LLM parser's option of the same name (both restrict it with ``choices``): the LLM server
    would stop on the value, so only the diffusion server can be the one the words are for (sglang#17454:
    ``--attention-backend torch_sdpa``). Each as ``--option value``."""
    found: list[str] = []
    for i, word in enumerate(words):
        if word is None or not word.startswith("--"):
            continue
        name, eq, value = word.partition("=")
        if not eq:
            if i + 1 >= len(words) or words[i + 1] is None:
                continue
            value = str(words[i + 1])
        ours = llm_choices.get(name)
        spec = table.options.get(name)
        theirs = spec.get("choices") if spec else None
        if not ours or not theirs or value in {str(c) for c in ours}:
            continue
        if value in {str(c) for c in theirs} and f"{name} {value}" not in found:
            found.append(f"{name} {value}")
    return found


def _match(table: DiffusionTable, name: str) -> dict[str, Any] | None:
    if name in table.options:
        return table.options[name]
    # argparse's allow_abbrev: a unique prefix of a long option
    hits = {id(v): v for k, v in table.options.items() if k.startswith(name) and k.startswith("--")}
    if name.startswith("--") and len(hits) == 1:
        return next(iter(hits.values()))
    return None


def _dynamic(table: DiffusionTable, name: str) -> bool:
    if any(name.startswith(p) for p in table.prefixes):
        return True
    return name.startswith("--") and any(name.endswith(s) and len(name) > len(s) + 2 for s in table.suffixes)


def check_words(table: DiffusionTable, words: list[str | None]) -> DiffusionCheck:
    """Walk ``words`` as the diffusion parser does (the usual nargs forms) and collect what it refuses;
    a word that cannot be known statically is taken as accepted."""
    out = DiffusionCheck()
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None or word == "--":
            continue
        if not word.startswith("-") or word == "-":
            out.refused.append((i - 1, word))
            continue
        name, eq, _value = word.partition("=")
        spec = _match(table, name)
        if spec is None:
            if _dynamic(table, name):
                if not eq and i < len(words) and not (words[i] or "").startswith("-"):
                    i += 1
                continue
            out.refused.append((i - 1, name))
            while i < len(words) and words[i] is not None and not str(words[i]).startswith("-"):
                i += 1  # its value words are left over with it
            continue
        if eq or spec.get("action") in _NO_VALUE:
            continue
        nargs = spec.get("nargs")
        if nargs in (None, 1, "1"):
            i += 1
        elif nargs == "?":
            if i < len(words) and not (words[i] or "").startswith("-"):
                i += 1
        elif nargs in ("*", "+"):
            while i < len(words) and not (words[i] or "").startswith("-"):
                i += 1
        elif isinstance(nargs, int):
            i += nargs
    return out


def token_at(server: ServerCommand, tok: ArgToken) -> str | None:
    """Where the word ``tok`` came from (its origin in the server's argv), else the server start."""
    if tok.src and 0 <= tok.src[0] < len(server.argv):
        return server.argv[tok.src[0]].origin.at or server.at
    return server.at


def diffusion_backend(
    tokens: list[ArgToken], server: ServerCommand, schema: Schema, out: PreparedArgv, backend: str
) -> list[ArgToken]:
    """Decide ``sglang serve``'s backend (``backend`` is --model-type's value or "auto"). For the
    diffusion server, check the words against its parser and return only the model path words for the
    LLM parser (which that server never runs); otherwise return ``tokens`` unchanged."""
    from argtrace.rules import parser as rules

    if backend not in ("auto", "diffusion"):
        return tokens
    words = [t.text for t in tokens]
    table = table_for(schema.version)
    if table is None:
        if backend == "diffusion":
            out.notes.append(
                f"{DIFFUSION_NOTE} (--model-type diffusion): no diffusion server parser was read for "
                f"{schema.label} or an older release, so its words are not checked"
            )
            return _model_path_only(tokens)
        return tokens
    label = f"SGLang {table.release}'s diffusion server"
    if table.release != schema.version:
        label += f" (the nearest older release read, standing in for {schema.version})"
    if backend == "auto":
        llm = {s for spec in schema.options for s in spec.option_strings}
        only = only_diffusion(table, words, llm, schema.allow_abbrev)
        choices = {s: spec.choices for spec in schema.options if spec.choices for s in spec.option_strings}
        values = only_diffusion_choices(table, words, choices)
        if not only and not values:
            return tokens
        said = []
        if only:
            said.append(
                f"{', '.join(only)} {'is an option' if len(only) == 1 else 'are options'} of {label} "
                "(sglang/multimodal_gen), not of the LLM server"
            )
        if values:
            said.append(
                f"{', '.join(values)} {'is a value' if len(values) == 1 else 'are values'} that only {label} "
                "(sglang/multimodal_gen) takes: the LLM server's parser refuses "
                f"{'it' if len(values) == 1 else 'them'} (invalid choice)"
            )
        out.findings.append(
            rules.PA_SERVE_BACKEND.finding(
                f"{'; '.join(said)}: read as a diffusion model's launch, the "
                "words are checked against that server's parser; `sglang serve` decides from the model "
                "(the diffusion registry, model_index.json), which argtrace does not read",
                at=server.at,
                basis="assumed",
            )
        )
    out.notes.append(f"{DIFFUSION_NOTE} gets the words: {label}")
    check = check_words(table, words)
    for index, word in check.refused:
        tok = tokens[index]
        setting = word.lstrip("-").replace("-", "_") if word.startswith("-") else None
        if table.refuses_unknown:
            message = (
                f"{word} is not an option of {label}, which `sglang serve` runs for a diffusion model: it "
                'stops with "error: unrecognized arguments" (ServerArgs.from_cli_args of '
                "sglang/multimodal_gen)"
            )
        else:
            message = (
                f"{word} is not an option of {label}, which `sglang serve` runs for a diffusion model: its "
                "parser (parse_known_args) leaves the word over and ServerArgs.from_cli_args of "
                "sglang/multimodal_gen ignores what is left, so the value is lost without an error"
            )
        stand_in = table.release != schema.version
        takers = newer_takers(table, schema.version, word) if word.startswith("-") else []
        fix = "remove the flag"
        if takers and stand_in:
            # the stand-in's refusal is one side only: the next release read takes the option
            message += (
                f"; SGLang {takers[0]}'s diffusion server takes it, and {schema.version} lies between "
                f"{table.release} and {takers[0]}: which it follows is unknown"
            )
            fix = f"remove the flag, or run a release whose diffusion server has it ({takers[0]}'s has)"
        elif takers:
            # the release's own refusal; a newer release read has the option (the upgrade is the other fix)
            since = takers[0] if takers == later_releases(takers[0]) else None
            message += (
                f"; SGLang {since}'s diffusion server and every later release read take it"
                if since
                else f"; the diffusion server of SGLang {', '.join(takers)} takes it"
            )
            fix = (
                f"remove the flag, or run SGLang {since} or later, whose diffusion server has it"
                if since
                else f"remove the flag, or run a release whose diffusion server has it ({takers[0]}'s has)"
            )
        finding = rules.PA_UNRECOGNIZED.finding(
            message,
            at=token_at(server, tok),
            setting=setting,
            fix=fix,
            severity="info" if takers and stand_in else "warning",
            basis="assumed",
        )
        out.findings.append(finding)
    older = older_refusals(table, words)
    for release, refused in older.items():
        out.notes.append(
            f"sglang serve: SGLang {release}'s diffusion server (the newest older release that does) refuses "
            f"{', '.join(refused)}"
        )
    return _model_path_only(tokens)


def _model_path_only(tokens: list[ArgToken]) -> list[ArgToken]:
    """The ``--model-path VALUE`` words (the model layers read them); the rest is the diffusion server's."""
    for i, tok in enumerate(tokens):
        if tok.text == "--model-path" and i + 1 < len(tokens):
            return [tok, tokens[i + 1]]
        if tok.text is not None and tok.text.startswith("--model-path="):
            return [tok]
    return []
