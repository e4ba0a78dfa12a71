"""vLLM: what ``FlexibleArgumentParser.parse_args`` does to argv before ``argparse``, and its converters.

From ``vllm/utils/argparse_utils.py`` (the rewrites the schema names in ``parser.argv_rewrites``):

* ``vllm serve ... --model M`` moves ``M`` to the positional ``model_tag`` (``serve_model_option``);
* ``--config FILE.yaml`` (exact word) is replaced by the YAML's keys, placed after the subcommand and model
  so the command line wins; a ``false`` boolean becomes ``--no-KEY`` only if the *top-level* parser knows
  that string, which for ``vllm serve`` it never does (``config_yaml``);
* in every word starting with ``--``, underscores become dashes up to the first ``.`` or ``=``
  (``underscore_to_dash``); ``-O3``/``-O=3``/``-O 3`` become ``--optimization-level 3``;
* ``--json-flag.key.sub VALUE`` (and ``--x.key+ a,b``) are merged into one JSON object per flag and
  appended at the *end* of argv as ``--json-flag '{...}'`` (``dotted_keys``); any word that starts with
  ``-`` and contains a ``.`` is taken for such a key, values like ``-0.5`` included.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from functools import lru_cache

from argtrace import safe_json
from argtrace.frameworks.argv import (
    UNKNOWN_PREFIX,
    ArgToken,
    DottedPart,
    PreparedArgv,
    config_name_unknown,
    read_config_file,
    server_tokens,
)
from argtrace.frameworks.schema import Schema
from argtrace.model import ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "vllm"
SERVE = "vllm serve"
_ALL_REWRITES = (
    "serve_model_option",
    "config_yaml",
    "underscore_to_dash",
    "optimization_level",
    "dotted_keys",
)
_ALIASES = {
    "serve_model_option": ("serve_model_flag_to_positional", "serve_model_option", "serve_model"),
    "config_yaml": ("config_yaml", "config", "config_file"),
    "underscore_to_dash": ("underscore_to_dash", "underscores", "underscore_dash"),
    "optimization_level": ("optimization_level_shorthand", "optimization_level"),
    "dotted_keys": ("dotted_keys", "dotted", "json_dotted_keys"),
}
_UNDERSCORE_SEGMENT = re.compile(r"(?<=--)[^\.]*")


def _enabled(schema: Schema, rewrite: str) -> bool:
    if not schema.argv_rewrites:
        # A FlexibleArgumentParser schema that does not list its rewrites: they are the class's own code.
        return schema.parser_class == "FlexibleArgumentParser"
    return schema.has_rewrite(*_ALIASES[rewrite])


def prepare_argv(server: ServerCommand, schema: Schema) -> PreparedArgv:
    tokens = server_tokens(server)
    out = PreparedArgv(tokens)
    stops = schema.data.get("entrypoint_stops")  # vLLM's demo module missing or failing (vllm_demo.py)
    if stops:  # the process ends before any parser sees a word: nothing is parsed
        out.fatal = (1, str(stops))
        out.tokens = []
        return out
    serve = server.entrypoint == SERVE
    if server.entrypoint == "trl vllm-serve":
        from argtrace.frameworks.trl_launch import trl_prepared

        tokens, serve = trl_prepared(tokens, out, server, schema)
        if out.fatal or not serve:
            out.tokens = tokens
            out.without = engine_only(schema) if not out.fatal else ()
            return out
    if server.entrypoint == "dynamo.vllm":
        from argtrace.frameworks.dynamo import without_dynamo_options

        tokens = out.tokens = without_dynamo_options(tokens, out, server.entrypoint, server.at, server.image)
    if server.entrypoint == "huggingfaceserver":
        tokens = out.tokens = _without_kserve_options(tokens, out, schema)
    legacy = _legacy(schema)
    if server.entrypoint == "huggingfaceserver":
        # KServe calls parse_known_args, which FlexibleArgumentParser leaves as argparse's: none of its
        # parse_args rewrites (underscores, dotted keys, --config) happen, and unknown words are dropped
        out.known_args = True
        out.tokens = tokens
        out.without = module_lacks(schema)
        return out
    args: list[ArgToken] = ([ArgToken("serve", via="rewrite")] if serve else []) + tokens
    # 0.6-0.11 raise on `vllm serve --model` before any other rewrite: the launch stops there (kept as the
    # fatal outcome), but the words after it are still turned into what the parser sees once the model is
    # moved, so no later finding rests on words only the raise left unconverted (`--max_model_len`)
    stopped: tuple[int, str] | None = None
    if serve and legacy and _enabled(schema, "serve_model_option"):
        _refuse_model_option(args, server, out)
        stopped, out.fatal = out.fatal, None
    elif serve and _enabled(schema, "serve_model_option"):
        given, written = len(out.notes), args
        args = _move_model_option(args, out)
        if len(out.notes) > given:
            _model_option_note(server, schema, written, args, out)
        if out.fatal:
            return _first_stop(out, stopped)
        # `--served-model-name` with no positional model raises before the rewrites below, as the legacy
        # `--model` refusal does: kept as the fatal outcome, the words still turned into what the parser would
        # see, so no later finding rests on a word only the raise left unconverted (`--block_size`)
        _check_served_model_name(args, server, schema, out)
        stopped, out.fatal = stopped or out.fatal, None
    if _enabled(schema, "config_yaml") and any(a.text == "--config" for a in args):
        args = _pull_config(args, server, schema, serve, out, legacy=legacy)
        if out.fatal:
            return _first_stop(out, stopped)
    if _enabled(schema, "underscore_to_dash") or _enabled(schema, "optimization_level"):
        args = _normalise(
            args,
            underscores=_enabled(schema, "underscore_to_dash"),
            # 0.9-0.11 turn -O3 into the dotted -O.level=3; 0.6-0.8 (no dotted keys) leave it to argparse,
            # whose -O takes the attached 3 itself (their `len(arg) == 2` split never matches -O3)
            dash_o=_enabled(schema, "optimization_level")
            or (legacy and _enabled(schema, "underscore_to_dash") and _enabled(schema, "dotted_keys")),
            legacy=legacy,
            # 0.11.1-0.11.2 have the shorthand but no --optimization-level yet: their parse_args writes the
            # dotted `-O.mode=3` for -O (their alias of --compilation-config), argparse_utils.py:255-267 of
            # the 0.11.2 wheel; from 0.12.0 the schema registers --optimization-level and -O becomes it
            dotted_mode=schema.option("--optimization-level") is None,
        )
    if _enabled(schema, "dotted_keys"):
        args = _merge_dotted(args, out, human_ints=not legacy)
        if out.fatal:
            return _first_stop(out, stopped)
    if serve and args and args[0].text == "serve" and args[0].via == "rewrite":
        args = args[1:]
    out.tokens = args
    if server.entrypoint == "dynamo.vllm":
        out.without = engine_only(schema)
    elif not serve:
        out.without = module_lacks(schema)
    return _first_stop(out, stopped)


def _first_stop(out: PreparedArgv, stopped: tuple[int, str] | None) -> PreparedArgv:
    """``out`` with the earliest raise as its fatal outcome: the launch ends at the first one."""
    if stopped is not None:
        out.fatal = stopped
    return out


def _without_kserve_options(tokens: list[ArgToken], out: PreparedArgv, schema: Schema) -> list[ArgToken]:
    """The tokens vLLM's options get in KServe's ``python -m huggingfaceserver`` (``kserve_hf.py``);
    KServe's own named in ``out.notes``. One whose dest is a vLLM setting sets it: read as vLLM's option."""
    from argtrace.frameworks.kserve_hf import source, split_kserve

    split = split_kserve([t.text for t in tokens])
    vllm_flag = {o.dest: o.option_strings[0] for o in schema.options if o.option_strings}
    kept = {i: tokens[i] for i in split.engine}
    names = []
    for flag, dest, indices in split.kserve:
        if dest not in vllm_flag:
            names.append(flag)
            continue
        # KServe's spelling sets the dest vLLM's engine args read: read as vLLM's option of that dest
        first = tokens[indices[0]]
        text = (first.text or "").replace(flag, vllm_flag[dest], 1)
        kept[indices[0]] = ArgToken(text, first.src, "rewrite", first.at, first.original or first.text)
        kept.update({i: tokens[i] for i in indices[1:]})
    if names:
        out.notes.append(
            f"huggingfaceserver options (KServe's, {source()}), not vLLM flags: {', '.join(names)}"
        )
    return [kept[i] for i in sorted(kept)]


def engine_only(schema: Schema) -> tuple[str, ...]:
    """What of the schema (the `vllm serve` parser) Dynamo's ``dynamo.vllm`` engine parser does not have:
    it is ``AsyncEngineArgs.add_cli_args`` alone (ai-dynamo 1.6.1 ``dynamo/vllm/args.py``), so no
    positional model and none of ``make_arg_parser``'s frontend options (the schema's ``Frontend`` group;
    releases whose schema does not group them keep them)."""
    frontend = [o.option_strings[0] for o in schema.options if o.group == "Frontend" and o.option_strings]
    return ("model_tag", *frontend)


def module_lacks(schema: Schema) -> tuple[str, ...]:
    """What of the schema (the `vllm serve` parser) ``python -m vllm.entrypoints.openai.api_server`` does
    not have: in vLLM <= 0.9 `vllm serve` adds ``model_tag``, ``--config`` (and in 0.9 ``--headless`` and
    the API-server flags) to its subparser before ``make_arg_parser``, while the module parses
    ``make_arg_parser`` alone. The generator records it as that entry point's ``lacks``."""
    for entry in schema.entrypoints:
        if isinstance(entry, Mapping) and str(entry.get("command", "")).startswith("python -m"):
            return tuple(str(d) for d in entry.get("lacks") or ())
    return ()


def _mapping_as_json(schema: Schema, legacy: bool) -> bool:
    """Whether the release's load_config_file passes a YAML mapping as JSON (``json.dumps``) or as its
    Python repr (``str(value)``): the release's own code (frameworks/vllm_config_file.py); for a release it
    does not record, the parser module's age (``_legacy``) decides."""
    from argtrace.frameworks.vllm_config_file import mapping_word

    word = mapping_word(schema.version)
    return (word.mapping == "json") if word is not None else not legacy


def _mapping_in_older(
    schema: Schema, key: str, value: dict[str, Any], file_path: str, at: str | None, out: PreparedArgv
) -> None:
    """PA052: a YAML mapping under a JSON flag, which the analysed release passes as JSON and the bundled
    releases whose load_config_file ends in str(value) pass as its Python repr (json.loads refuses it)."""
    from argtrace.frameworks.vllm_config_file import repr_releases
    from argtrace.rules import parser as rules

    spec = schema.option("--" + key.replace("_", "-")) or schema.option("--" + key)
    if spec is None or spec.dest not in schema.json_flags:
        return
    older = repr_releases()
    if not older:
        return
    span = older[0] if len(older) == 1 else f"{older[0]}-{older[-1]}"
    out.findings.append(
        rules.PA_CONFIG_MAPPING.finding(
            f"{file_path}: `{key}` is a YAML mapping: {schema.label} passes it to {spec.flag} as JSON, but "
            f"vllm {span} pass its Python repr (str(value) in their load_config_file), which json.loads "
            "refuses: on those releases the server stops at parsing",
            at=at,
            setting=spec.dest,
            fix=f"write it as a JSON string in single quotes ({key}: '{json.dumps(value)}'), which every "
            "release passes as written",
        )
    )


def _legacy(schema: Schema) -> bool:
    """vLLM before FlexibleArgumentParser moved to ``vllm.utils.argparse_utils`` (0.11 and older): its
    parse_args refuses ``vllm serve --model``, turns ``-O3`` into ``-O.level=3``, reads config dicts as
    their Python repr and has no human-readable fallback for dotted values (read from the 0.11.0 wheel)."""
    return schema.parser_info.get("class_module") == "vllm.utils"


def _refuse_model_option(args: list[ArgToken], server: ServerCommand, out: PreparedArgv) -> None:
    from argtrace.rules import parser as rules

    if any(a.text == "--model" for a in args):
        msg = (
            "With `vllm serve`, you should provide the model as a positional argument or in a config file "
            "instead of via the `--model` option."
        )
        out.findings.append(
            rules.PA_SERVE_MODEL_PATH.finding(
                f"this vLLM release stops with ValueError: {msg}",
                at=server.at,
                setting="model",
                fix="put the model right after `vllm serve`",
            )
        )
        out.fatal = (1, "ValueError: " + msg)


def _move_model_option(args: list[ArgToken], out: PreparedArgv) -> list[ArgToken]:
    for idx, tok in enumerate(args):
        if tok.text is not None and re.match(r"^--model(=.+|$)", tok.text):
            if tok.text == "--model":
                if idx + 1 >= len(args):
                    out.fatal = (
                        1,
                        "IndexError: list index out of range (vllm serve --model without a value)",
                    )
                    return args
                model = args[idx + 1]
                rest = idx + 2
            else:
                model = ArgToken(tok.text.removeprefix("--model="), tok.src, via="rewrite", original=tok.text)
                rest = idx + 1
            out.notes.append("vllm serve: --model is moved to the positional model (deprecated spelling)")
            return [args[0], model, *args[1:idx], *args[rest:]]
    return args


def serve_model_option_refused() -> tuple[str, ...]:
    """The bundled releases whose `vllm serve` stops on ``--model M`` given without a positional model,
    read from their schemas: a FlexibleArgumentParser of ``vllm.utils`` that refuses the option
    (``_refuse_model_option``, 0.8.5.post1-0.11.0), or a `serve` whose positional model_tag is required
    (0.6.6.post1-0.7.3: argparse stops first)."""
    from argtrace.frameworks.schema import all_schemas

    out = []
    for schema in all_schemas(NAME):
        tag = next((p for p in schema.positionals if p.dest == "model_tag"), None)
        refuses = _legacy(schema) and _enabled(schema, "serve_model_option")
        if refuses or (tag is not None and tag.nargs is None):
            out.append(schema.version)
    return tuple(out)


def _model_option_note(
    server: ServerCommand, schema: Schema, written: list[ArgToken], moved: list[ArgToken], out: PreparedArgv
) -> None:
    """PA056: `vllm serve --model M` on a release that moves M to the positional (with a warning), and the
    releases that stop on it instead; an error when a positional model was written too, which the move
    leaves over as a word no flag takes (every release refuses the launch then)."""
    from argtrace.frameworks.release import describe_releases
    from argtrace.frameworks.schema import bundled_versions
    from argtrace.redact import redact_text
    from argtrace.rules import parser as rules

    refused = serve_model_option_refused()
    span = describe_releases(refused, bundled_versions(NAME, include_user=False)) if refused else ""
    model = redact_text(moved[1].text or "M") if len(moved) > 1 else "M"
    first = written[1].text if len(written) > 1 else None
    older = (
        f"; vllm {span} stop on --model itself (ValueError in FlexibleArgumentParser.parse_args, or "
        'argparse\'s "the following arguments are required: model_tag")'
        if span
        else ""
    )
    if first is not None and not first.startswith("-"):
        shown = redact_text(first)
        out.findings.append(
            rules.PA_SERVE_MODEL_OPTION.finding(
                f"`vllm serve {shown} ... --model {model}`: {schema.label} moves {model} to the positional "
                f"model, so the model written first, '{shown}', is left over (\"unrecognized arguments\", "
                f"exit 2){older}",
                at=server.at,
                setting="model",
                severity="error",
                fix=f"drop `--model {model}`: the positional word names the model"
                + ("" if first == moved[1].text else f" (keep the one you mean: '{shown}' or '{model}')"),
            )
        )
        return
    if not span:
        return
    out.findings.append(
        rules.PA_SERVE_MODEL_OPTION.finding(
            f"`vllm serve --model {model}`: {schema.label} moves {model} to the positional model (with a "
            f"warning that --model is deprecated){older}",
            at=server.at,
            setting="model",
        )
    )


# vLLM PR #34973 (merged 2026-02-20): `vllm serve --opt ... MODEL --served-model-name X` raises in
# FlexibleArgumentParser.parse_args; before it the model after the options was the positional as usual
_SERVED_NAME_SITE = ("vllm/utils/argparse_utils.py", "FlexibleArgumentParser.parse_args")
_SERVED_NAME_TEXT = "should be provided as the first positional argument"


def served_model_name_refused(version: str) -> bool:
    """Whether ``version`` refuses ``--served-model-name`` when the model is not the first word after
    ``vllm serve``: its raise site is in the message index (``scripts/gen_messages.py``, from the release's
    wheel; 0.17.1 and later). A release the index does not cover keeps the check."""
    from argtrace.resolver.message_store import indexed_releases, sites

    if version not in indexed_releases(NAME):
        return True
    return any(
        (site.file, site.function) == _SERVED_NAME_SITE
        and _SERVED_NAME_TEXT in site.template
        and version in site.at
        for site in sites(NAME)
    )


def _check_served_model_name(
    args: list[ArgToken], server: ServerCommand, schema: Schema, out: PreparedArgv
) -> None:
    from argtrace.rules import parser as rules

    texts = [a.text or "" for a in args]
    if (
        len(args) > 1
        and texts[1].startswith("-")
        and not any(re.match(r"^--config(=.+|$)", t) for t in texts)
        and any(re.match(r"^--served[-_]model[-_]name(=.+|$)", t) for t in texts)
        and served_model_name_refused(schema.version)
    ):
        msg = (
            "`model` should be provided as the first positional argument when using `vllm serve`. "
            "i.e. `vllm serve <model> --<arg> <value>`."
        )
        out.findings.append(
            rules.PA_SERVE_MODEL_PATH.finding(
                f"vllm serve with --served-model-name but no positional model stops with ValueError: {msg}",
                at=server.at,
                setting="model_tag",
                fix="put the model right after `vllm serve`",
            )
        )
        out.fatal = (1, "ValueError: " + msg)


def _pull_config(
    args: list[ArgToken],
    server: ServerCommand,
    schema: Schema,
    serve: bool,
    out: PreparedArgv,
    *,
    legacy: bool = False,
) -> list[ArgToken]:
    from argtrace.rules import parser as rules

    count = sum(1 for a in args if a.text == "--config")
    index = next(i for i, a in enumerate(args) if a.text == "--config")
    cfg = args[index]
    at = server.argv[cfg.src[0]].origin.at if cfg.src else server.at
    if count > 1:
        msg = "More than one config file specified!"
        out.findings.append(rules.PA_CONFIG_FILE.finding(f"--config is given {count} times: {msg}", at=at))
        out.fatal = (1, "AssertionError: " + msg)
        return args
    if index == len(args) - 1:
        msg = "No config file specified! Please check your command-line arguments."
        out.findings.append(rules.PA_CONFIG_FILE.finding(msg, at=at))
        out.fatal = (1, "ValueError: " + msg)
        return args
    path_tok = args[index + 1]
    if path_tok.text is None:
        config_name_unknown(out, at)
        return args[:index] + args[index + 2 :]
    file_path = path_tok.text
    extension = file_path.split(".")[-1]
    if extension not in ("yaml", "yml"):
        msg = f"Config file must be of a yaml/yml type. {extension} supplied"
        out.findings.append(rules.PA_CONFIG_FILE.finding(f"--config {file_path}: {msg}", at=at))
        out.fatal = (1, "ValueError: " + msg)
        return args
    state, items = read_config_file(
        file_path,
        server,
        out,
        at,
        not_found=f"FileNotFoundError: [Errno 2] No such file or directory: {file_path!r}",
        stops="vLLM stops with FileNotFoundError",
        then=lambda config: list(config.items()),
    )
    if state == "fatal":
        return args
    if state == "absent":
        return args[:index] + args[index + 2 :]
    config_args: list[ArgToken] = []

    def add(text: str) -> None:
        config_args.append(ArgToken(text, path_tok.src, via="config", at=file_path))

    for key, value in items:
        key = str(key)
        if isinstance(value, bool):
            if value:
                add("--" + key)
            else:
                no_key = f"--no-{key}"
                # FlexibleArgumentParser looks the negation up on the parser whose parse_args runs: for
                # `vllm serve` that is the top-level `vllm` parser, which has none of the serve options.
                if not serve and not legacy and _registered(schema, no_key):
                    add(no_key)
                else:
                    out.findings.append(
                        rules.PA_CONFIG_DROPPED.finding(
                            (
                                f"{file_path}: `{key}: false` is dropped: this vLLM release never turns "
                                "a false boolean from a config file into a flag, so the default applies"
                            )
                            if legacy
                            else (
                                f"{file_path}: `{key}: false` is dropped: vLLM only turns a false boolean "
                                f"into {no_key} when the {'top-level `vllm` ' if serve else ''}parser "
                                "knows that flag, so the default applies"
                            ),
                            at=at,
                            setting=key.replace("-", "_"),
                        )
                    )
        elif isinstance(value, list):
            if value:
                add("--" + key)
                for item in value:
                    add(str(item))
        elif isinstance(value, dict) and _mapping_as_json(schema, legacy):
            add("--" + key)
            add(json.dumps(value))
            _mapping_in_older(schema, key, value, file_path, at, out)
        else:
            add("--" + key)
            add(str(value))
    out.notes.append(f"--config {file_path}: {len(items)} keys merged after the subcommand")
    rest_tail = args[index + 2 :]
    if args and args[0].text is not None and args[0].text.startswith("-"):
        return config_args + args[0:index] + rest_tail
    if args and args[0].text == "serve":
        model_in_cli = len(args) > 1 and not (args[1].text or "").startswith("-")
        model_in_config = any(a.text == "--model" for a in config_args)
        if not model_in_cli and not model_in_config:
            msg = (
                "No model specified! Please specify model either as a positional argument "
                "or in a config file."
            )
            out.findings.append(rules.PA_SERVE_MODEL_PATH.finding(msg, at=at, setting="model_tag"))
            out.fatal = (1, "ValueError: " + msg)
            return args
        if model_in_cli:
            return args[:2] + config_args + args[2:index] + rest_tail
        return args[:1] + config_args + args[1:index] + rest_tail
    if not args:
        return config_args
    return [args[0], *config_args, *args[1:index], *rest_tail]


def option_read_as(word: str) -> str:
    """The option string ``FlexibleArgumentParser`` looks up for a word of argv: underscores become dashes
    before the first ``.`` or ``=`` (``--gpu_memory_utilization``), and a dotted JSON key
    (``--kv-transfer-config.kv_role``, ``--x.key+``) is merged into the flag before the dot."""
    name = word.split("=", 1)[0]
    if not name.startswith("--"):
        return name
    return name.split(".", 1)[0].replace("_", "-")


def _registered(schema: Schema, option: str) -> bool:
    """True when the parser registers ``option`` (hidden --no-X strings of EnableDisableAction included)."""
    from argtrace.frameworks.actions import registered_option_strings

    return option in registered_option_strings(schema)


def _normalise(
    args: list[ArgToken],
    *,
    underscores: bool = True,
    dash_o: bool = True,
    legacy: bool = False,
    dotted_mode: bool = False,
) -> list[ArgToken]:
    def repl(match: re.Match[str]) -> str:
        return match.group(0).replace("_", "-")

    out: list[ArgToken] = []
    for i, tok in enumerate(args):
        arg = tok.text
        if arg is None:
            out.append(tok)
        elif arg.startswith("--help="):
            out.append(ArgToken("--help", tok.src, via="rewrite", original=arg))
        elif arg.startswith("--") and underscores:
            if "=" in arg:
                key, value = arg.split("=", 1)
                key = _UNDERSCORE_SEGMENT.sub(repl, key, count=1)
                new = f"{key}={value}"
            else:
                new = _UNDERSCORE_SEGMENT.sub(repl, arg, count=1)
            out.append(tok if new == arg else ArgToken(new, tok.src, tok.via, tok.at, tok.original or arg))
        elif (legacy or dotted_mode) and dash_o and arg.startswith("-O") and arg != "-O" and arg[2] != ".":
            level = arg[3:] if arg[2] == "=" else arg[2:]
            key = "level" if legacy else "mode"
            out.append(ArgToken(f"-O.{key}={level}", tok.src, via="rewrite", original=arg))
        elif (
            (legacy or dotted_mode)
            and dash_o
            and arg == "-O"
            and i + 1 < len(args)
            and args[i + 1].text in {"0", "1", "2", "3"}
        ):
            out.append(ArgToken("-O.level" if legacy else "-O.mode", tok.src, via="rewrite", original=arg))
        elif dotted_mode and arg.startswith("-O."):
            out.append(tok)  # the dotted key of -O itself (--compilation-config), merged below
        elif dash_o and arg.startswith("-O") and arg != "-O":
            level = arg[3:] if len(arg) > 2 and arg[2] == "=" else arg[2:]
            out.append(ArgToken("--optimization-level", tok.src, via="rewrite", original=arg))
            out.append(ArgToken(level, tok.src, via="rewrite", original=arg))
        elif dash_o and arg == "-O" and i + 1 < len(args) and args[i + 1].text in {"0", "1", "2", "3"}:
            out.append(ArgToken("--optimization-level", tok.src, via="rewrite", original=arg))
        else:
            out.append(tok)
    return out


def _merge_dotted(args: list[ArgToken], out: PreparedArgv, *, human_ints: bool = True) -> list[ArgToken]:
    from argtrace.rules import parser as rules

    delete: set[int] = set()
    dict_args: dict[str, dict[str, Any]] = defaultdict(dict)
    dict_src: dict[str, list[int]] = defaultdict(list)
    duplicates: set[str] = set()
    for i, tok in enumerate(args):
        if i in delete or tok.text is None:
            continue
        arg = tok.text
        if arg.startswith("--") and "." not in arg and human_ints:
            continue
        if arg.startswith("-") and "." in arg:
            src = list(tok.src)
            if "=" in arg:
                arg, value_str_opt = arg.split("=", 1)
                if "." not in arg:
                    continue
                value_str: str | None = value_str_opt
            else:
                if i + 1 >= len(args):
                    out.fatal = (1, f"IndexError: {arg} (a dotted JSON key) has no value")
                    out.findings.append(
                        rules.PA_MISSING_VALUE.finding(
                            f"{arg} is read as a dotted JSON key and needs a value; vLLM stops with "
                            "IndexError",
                            setting=arg.lstrip("-").split(".", 1)[0].replace("-", "_"),
                        )
                    )
                    return args
                value_str = args[i + 1].text
                src += list(args[i + 1].src)
                delete.add(i + 1)
            if value_str is None:
                value_str = UNKNOWN_PREFIX + "dotted"
            if arg.endswith("+"):
                arg = arg[:-1]
                value_str = json.dumps(list(value_str.split(",")))
            key, *keys = arg.split(".")
            value: Any
            try:
                value = safe_json.loads(value_str)
            except json.JSONDecodeError:
                value = value_str
                if human_ints:
                    try:
                        value = human_readable_int(value_str)
                    except (ValueError, argparse.ArgumentTypeError):
                        value = value_str
            nested: Any = value
            for k in reversed(keys):
                nested = {k: nested}
            dups = _recursive_update(dict_args[key], nested)
            duplicates |= {f"{key}.{d}" for d in dups}
            dict_src[key].extend(src)
            out.dotted.append(DottedPart(key, tuple(keys), value, value_str, tuple(src)))
            delete.add(i)
    kept = [a for i, a in enumerate(args) if i not in delete]
    for name, value in dict_args.items():
        merged = tuple(dict.fromkeys(dict_src[name]))
        kept.append(ArgToken(name, merged, via="dotted"))
        kept.append(ArgToken(json.dumps(value), merged, via="dotted"))
    if duplicates:
        out.notes.append("vLLM: found duplicate keys " + ", ".join(sorted(duplicates)))
    return kept


def _recursive_update(original: dict[str, Any], update: Mapping[str, Any]) -> set[str]:
    duplicates: set[str] = set()
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            nested = _recursive_update(original[k], v)
            duplicates |= {f"{k}.{d}" for d in nested}
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            if k in original:
                duplicates.add(k)
            original[k] = v
    return duplicates


# ------------------------------------------------------------------------------------------ converters


def human_readable_int(value: str) -> int:
    """vLLM's ``human_readable_int``: k/m/g/t decimal (decimals allowed), K/M/G/T binary (integers only)."""
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if match:
        decimal = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
        number, suffix = match.groups()
        if suffix in decimal:
            return int(float(number) * decimal[suffix])
        try:
            return int(number) * binary[suffix]
        except ValueError as e:
            raise argparse.ArgumentTypeError(
                "Decimals are not allowed "
                f"with binary suffixes like {suffix}. Did you mean to use "
                f"{number}{suffix.lower()} instead?"
            ) from e
    return int(value)


def human_readable_int_or_auto(value: str) -> int:
    value = value.strip()
    if value == "-1" or value.lower() == "auto":
        return -1
    return human_readable_int(value)


def _expand_json_human_readable_numbers(val: str) -> str:
    parts = re.split(r'("(?:[^"\\]|\\.)*")', val)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(
            r"\b\d+(?:\.\d+)?[kKmMgGtT]\b",
            lambda m: str(human_readable_int(m.group())),
            parts[i],
        )
    return "".join(parts)


def parse_dataclass_json(val: str) -> Any:
    """A JSON-valued config flag (``--compilation-config``...): the JSON object vLLM validates into its
    config dataclass. Validation of field names/types is the config class's, not reproduced here."""
    try:
        value = safe_json.loads(_expand_json_human_readable_numbers(val))
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"invalid JSON: {e}") from e
    return value


@lru_cache(maxsize=1)
def _kvs_fallbacks() -> dict[str, str]:
    from argtrace.package_data import package_file

    path = package_file("frameworks/data/vllm_kvs_fallback.json")
    releases = json.loads(path.read_text(encoding="utf-8"))["releases"]
    return {r: str(e["fallback"]["pattern"]) for r, e in releases.items() if e.get("fallback")}


def kvs_fallback(release: str) -> str | None:
    """The pattern a JSON value must match in ``release`` before its converter hands it to ``nullable_kvs``
    instead (vLLM 0.8.5-0.9.x: ``image=10`` for ``{"image": 10}``); None when the release has no such
    fallback or is not read (``data/vllm_kvs_fallback.json``, scripts/gen_vllm_kvs_fallback.py)."""
    return _kvs_fallbacks().get(release)


def nullable_kvs(val: str) -> dict[str, int]:
    """vLLM 0.9.2's ``nullable_kvs`` (``vllm/engine/arg_utils.py:92``; the generator checks every release
    with the fallback has these statements): ``image=10,video=0`` -> ``{"image": 10, "video": 0}``."""
    out_dict: dict[str, int] = {}
    for item in val.split(","):
        kv_parts = [part.lower().strip() for part in item.split("=")]
        if len(kv_parts) != 2:
            raise argparse.ArgumentTypeError("Each item should be in the form KEY=VALUE")
        key, value = kv_parts
        try:
            parsed_value = int(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"Failed to parse value of item {key}={value}") from exc
        if key in out_dict and out_dict[key] != parsed_value:
            raise argparse.ArgumentTypeError(f"Conflicting values specified for key: {key}")
        out_dict[key] = parsed_value
    return out_dict


def parse_type(return_type: Callable[[str], Any], release: str | None = None) -> Callable[[str], Any]:
    """vLLM's ``parse_type`` closure; ``release``: the release whose fallback for a JSON value not written as
    an object is asked when such a value comes (``kvs_fallback``: read only then)."""

    def _parse_type(val: str) -> Any:
        if release is not None and return_type is safe_json.loads:
            pattern = kvs_fallback(release)
            if pattern is not None and not re.match(pattern, val):
                return nullable_kvs(val)
        try:
            return return_type(val)
        except ValueError as e:
            # vLLM prints the converter's repr, whose address differs in every process: without it the
            # report is the same from run to run (`<function loads>`)
            shown = re.sub(r" at 0x[0-9a-fA-F]+>", ">", str(return_type))
            raise argparse.ArgumentTypeError(f"Value {val} cannot be converted to {shown}.") from e

    return _parse_type


def optional_type(return_type: Callable[[str], Any], release: str | None = None) -> Callable[[str], Any]:
    def _optional_type(val: str) -> Any:
        if val == "" or val == "None":
            return None
        return parse_type(return_type, release)(val)

    return _optional_type


def union_dict_and_str(val: str) -> Any:
    if not re.match(r"(?s)^\s*{.*}\s*$", val):
        return str(val)
    return optional_type(safe_json.loads)(val)


def parse_reasoning_parser(val: str) -> str:
    return "" if val.lower() == "none" else val


def check_port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("Port must be an integer") from None
    if not (1024 <= port <= 65535):
        raise argparse.ArgumentTypeError("Port must be between 1024 and 65535")
    return port


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "human_readable_int": human_readable_int,
    "human_readable_int_or_auto": human_readable_int_or_auto,
    "union_dict_and_str": union_dict_and_str,
    "parse_reasoning_parser": parse_reasoning_parser,
    "check_port": check_port,
    "parse_dataclass": parse_dataclass_json,
    "_expand_json_human_readable_numbers": _expand_json_human_readable_numbers,
}


def converter(type_name: str) -> Callable[[str], Any] | None:
    """The Python equivalent of one of vLLM's ``type=`` converters, by (qualified) name."""
    if not (type_name.startswith("vllm.") or "." not in type_name):
        return None
    short = type_name.rsplit(".", 1)[-1]
    return CONVERTERS.get(short)
