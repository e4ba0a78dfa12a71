"""SGLang's argv rewrites before ``argparse`` (see frameworks/sglang.py's docstring): sglang-router's
``--router-*`` options, ``sglang serve``'s selector and model path, and ``--config FILE.yaml``'s merge.
Read by ``sglang.prepare_argv`` for a launch that has one of them."""

from __future__ import annotations

from argtrace.frameworks.argv import ArgToken, config_name_unknown, read_config_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.argv import PreparedArgv
    from argtrace.frameworks.schema import Schema
    from argtrace.model import ServerCommand

# sglang.SERVE (not imported from there: sglang.py imports this module)
SERVE = "sglang serve"


def serve_argv(
    tokens: list[ArgToken], server: ServerCommand, schema: Schema, out: PreparedArgv
) -> list[ArgToken]:
    """``sglang serve`` (``sglang/cli/serve.py``): its ``--model-type`` selector, a positional model and the
    literal ``--model-path`` it looks for before parsing, then the diffusion backend's choice."""
    from argtrace.frameworks.sglang_diffusion import serve_removes_model_type
    from argtrace.rules import parser as rules

    backend: list[str] = []
    if serve_removes_model_type(schema.version):
        tokens = _extract_model_type(tokens, out, backend)
    else:
        tokens = _model_type_too_early(tokens, server, schema, out)
    positional = schema.has_rewrite("serve_positional_model", "positional_model", "serve_model_positional")
    # An unknown first word (``sglang serve $MODEL``) is taken for the model too: a value that cannot
    # be known statically rarely starts with a dash.
    if positional and tokens and (tokens[0].text is None or not tokens[0].text.startswith("-")):
        first = tokens[0]
        tokens = [ArgToken("--model-path", first.src, via="rewrite"), first, *tokens[1:]]
    if out.fatal is None and not _serve_has_model_path(tokens, flags=_serve_model_flags(schema)):
        known = all(t.text is not None for t in tokens)
        spelled = (
            "--model-path" if not positional else "--model-path (or --model, or a first positional word)"
        )
        msg = (
            f"`sglang serve` looks for {spelled} literally before parsing; without it the {schema.label} "
            'launcher stops with "Error: --model-path is required" (an abbreviation such as --model '
            "is not enough there)"
        )
        # (imported here: frameworks/vanished.py serves findings a correct launch never has)
        from argtrace.frameworks.vanished import as_consequence, lost_positional, vanished_positional

        lost = lost_positional(server, lambda flag: True, first_only=True)
        if known and lost is not None and positional:
            # `sglang serve $MODEL` with MODEL unset or empty: the variable is the cause (PA029)
            out.findings.append(
                vanished_positional(
                    lost,
                    f"the {schema.label} `sglang serve` takes its first positional word as the model path",
                    "model_path",
                    "the model path",
                    'the launcher stops with "Error: --model-path is required"',
                )
            )
            out.findings.append(
                rules.PA_SERVE_MODEL_PATH.finding(
                    msg, at=server.at, setting="model_path", **as_consequence(lost)
                )
            )
        elif known:
            out.findings.append(rules.PA_SERVE_MODEL_PATH.finding(msg, at=server.at, setting="model_path"))
            out.fatal = (1, "Error: --model-path is required. Please provide the path to the model.")
    if out.fatal is None:
        from argtrace.frameworks.sglang_diffusion import diffusion_backend

        tokens = diffusion_backend(tokens, server, schema, out, backend[-1] if backend else "auto")
    return tokens


def _without_router_flags(
    tokens: list[ArgToken], out: PreparedArgv, at: str | None, server: ServerCommand | None = None
) -> list[ArgToken]:
    """sglang-router's launcher: its --router-* options go to the router, the rest to the server parser."""
    from argtrace.frameworks.sglang_router import (
        installed_refusals,
        older_router_flag,
        router_schema,
        split_router,
    )

    split = split_router([t.text for t in tokens])
    label, _options = router_schema()
    if split.router:
        names = ", ".join(flag for flag, _values in split.router)
        out.notes.append(f"router options ({label}), not server flags: {names}")
    from argtrace.rules import parser as rules

    for flag, _values in split.older:
        # the router release is assumed (the newest bundled): a warning resting on it, not an error
        message, fix = older_router_flag(flag)
        out.findings.append(
            rules.PA_UNRECOGNIZED.finding(message, at=at, fix=fix, severity="warning", basis="assumed")
        )

    if server is not None and split.router:
        # the release installed for the launch's interpreter, read from its dist-info: a flag newer than it
        for message, fix in installed_refusals(server.argv_text, [flag for flag, _values in split.router]):
            out.findings.append(rules.PA_UNRECOGNIZED.finding(message, at=at, fix=fix, basis="static"))

    for problem in split.problems:
        # one argparse parser holds both: a bad router value stops the launcher like a bad server flag
        rule = rules.PA_INVALID_CHOICE if "invalid choice" in problem else rules.PA_MISSING_VALUE
        out.findings.append(rule.finding(f"{problem}: {label}'s launcher exits with status 2", at=at))
        if out.fatal is None:
            out.fatal = (2, f"error: argument {problem}")
    return [tokens[i] for i in split.server]


def _extract_model_type(tokens: list[ArgToken], out: PreparedArgv, backend: list[str]) -> list[ArgToken]:
    """``sglang serve``'s own selector, removed before any parser; its values go to ``backend``."""
    kept: list[ArgToken] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.text == "--model-type":
            if i + 1 >= len(tokens):
                out.fatal = (1, "Error: --model-type requires a value.")
                return kept
            out.notes.append(f"sglang serve: --model-type {tokens[i + 1].text} selects the backend")
            backend.append(tokens[i + 1].text or "?")
            i += 2
            continue
        if tok.text is not None and tok.text.startswith("--model-type="):
            backend.append(tok.text.split("=", 1)[1])
            i += 1
            continue
        kept.append(tok)
        i += 1
    return kept


def _model_type_too_early(
    tokens: list[ArgToken], server: ServerCommand, schema: Schema, out: PreparedArgv
) -> list[ArgToken]:
    """``--model-type`` to an ``sglang serve`` whose serve.py has no such selector (before 0.5.10, read with
    the diffusion options): the word goes on to the server's parser, which refuses it (argparse's exit 2).
    Said here, with the release that added the selector, instead of the parser's PA001 and its near
    spelling (``--model``); the words are taken out and the parse marked as stopping."""
    from argtrace.frameworks.schema import version_key
    from argtrace.frameworks.sglang_diffusion import release_data, token_at
    from argtrace.rules import parser as rules

    for i, tok in enumerate(tokens):
        if tok.text is None or not (tok.text == "--model-type" or tok.text.startswith("--model-type=")):
            continue
        later = (v for v in release_data() if version_key(v) > version_key(schema.version))
        added = next((v for v in later if release_data()[v].get("model_type_override")), None)
        since = f"; `sglang serve` takes it from {added} on" if added else ""
        out.findings.append(
            rules.PA_UNRECOGNIZED.finding(
                f"--model-type is not a {schema.label} flag: its `sglang serve` hands the word to the "
                f'server\'s parser, which refuses it ("unrecognized arguments", exit 2){since}',
                at=token_at(server, tok),
                fix="remove --model-type (this release chooses the backend from the model)"
                + (f", or run SGLang {added} or later" if added else ""),
            )
        )
        words = 1 if "=" in tok.text or i + 1 >= len(tokens) else 2
        refused = " ".join(t.text or "?" for t in tokens[i : i + words])
        out.fatal = (2, f"unrecognized arguments: {refused}")
        return [*tokens[:i], *tokens[i + words :]]
    return tokens


def _serve_model_flags(schema: Schema) -> tuple[str, ...]:
    """The spellings ``sglang serve`` looks for before parsing (``get_model_path``): the schema's
    ``model_path_flags`` for the entry point when the generator records it; otherwise ``--model-path``
    alone up to 0.5.10 and ``--model-path``/``--model`` from 0.5.15 on (read from sglang/cli/utils.py of
    those wheels)."""
    from argtrace.frameworks.schema import version_key

    for entry in schema.entrypoints:
        if isinstance(entry, dict) and entry.get("command") == SERVE and entry.get("model_path_flags"):
            return tuple(str(f) for f in entry["model_path_flags"])
    if version_key(schema.version) <= version_key("0.5.10.post1"):
        return ("--model-path",)
    return ("--model-path", "--model")


def _serve_has_model_path(tokens: list[ArgToken], *, flags: tuple[str, ...]) -> bool:
    names = flags
    for i, tok in enumerate(tokens):
        text = tok.text or ""
        if text in names and i + 1 < len(tokens):
            return True
        if any(text.startswith(n + "=") for n in names):
            return True
        if text in ("-h", "--help"):
            return True
        if text == "--config":
            return True  # 0.5.23 may find it in the YAML; the parser then checks it is required
    return False


def _merge_config(
    tokens: list[ArgToken], server: ServerCommand, schema: Schema, out: PreparedArgv
) -> list[ArgToken]:
    """``ConfigArgumentMerger.merge_config_with_args``: config args + argv before + argv after."""
    from argtrace.rules import parser as rules

    indices = [i for i, t in enumerate(tokens) if t.text == "--config"]
    at = server.argv[tokens[indices[0]].src[0]].origin.at if tokens[indices[0]].src else server.at
    if len(indices) > 1:
        msg = "Multiple config files specified! Only one allowed."
        out.findings.append(
            rules.PA_CONFIG_FILE.finding(f"--config is given {len(indices)} times: {msg}", at=at)
        )
        out.fatal = (1, msg)
        return tokens
    index = indices[0]
    if index == len(tokens) - 1:
        msg = "No config file specified after --config flag!"
        out.findings.append(rules.PA_CONFIG_FILE.finding(msg, at=at))
        out.fatal = (1, msg)
        return tokens
    path_tok = tokens[index + 1]
    rest = tokens[:index] + tokens[index + 2 :]
    if path_tok.text is None:
        config_name_unknown(out, at)
        return rest
    path_text = path_tok.text
    suffix = ("." + path_text.rsplit(".", 1)[-1].lower()) if "." in path_text.rsplit("/", 1)[-1] else ""
    if suffix not in (".yaml", ".yml"):
        msg = f"Config file must be YAML format, got: {suffix}"
        out.findings.append(rules.PA_CONFIG_FILE.finding(f"--config {path_text}: {msg}", at=at))
        out.fatal = (1, msg)
        return tokens
    state, data = read_config_file(
        path_text,
        server,
        out,
        at,
        not_found=f"Config file not found: {path_text}",
        stops='the launcher stops with "Config file not found"',
    )
    if state == "fatal":
        return tokens
    if state == "absent":
        return rest
    if data is None:
        data = {}
    if not isinstance(data, dict):
        msg = "Config file must contain a dictionary at root level"
        out.findings.append(rules.PA_CONFIG_FILE.finding(f"--config {path_text}: {msg}", at=at))
        out.fatal = (1, msg)
        return tokens
    store_true = {o.dest for o in schema.options if o.action == "store_true"}
    unsupported = {
        o.dest: o
        for o in schema.options
        if o.action not in ("store_true", "store")
        and "--config" not in o.option_strings
        and "--help" not in o.option_strings
        and "-h" not in o.option_strings
    }
    config_tokens: list[ArgToken] = []
    where = path_text

    def add(text: str) -> None:
        config_tokens.append(ArgToken(text, path_tok.src, via="config", at=where))

    for key, value in data.items():
        key = str(key)
        key_norm = key.replace("-", "_")
        if key_norm in unsupported:
            action = unsupported[key_norm].action
            msg = f"Unsupported config option '{key_norm}' with action '{action}'"
            out.findings.append(
                rules.PA_CONFIG_FILE.finding(
                    f"{path_text}: {msg}",
                    at=at,
                    setting=key_norm,
                    fix=f"remove `{key}` from {path_text} and pass it on the command line: "
                    + _command_line_spelling(unsupported[key_norm], value),
                )
            )
            out.fatal = (1, msg)
            return tokens
        if isinstance(value, bool):
            if key_norm in store_true:
                if value:
                    add(f"--{key}")
                else:
                    out.findings.append(
                        rules.PA_CONFIG_DROPPED.finding(
                            f"{path_text}: `{key}: false` adds nothing (a store_true flag is only ever set); "
                            "it only matters if the command line does not set it either",
                            at=at,
                            setting=key_norm,
                            severity="info",
                        )
                    )
            else:
                add(f"--{key}")
                add(str(value).lower())
        elif isinstance(value, list):
            if value:
                add(f"--{key}")
                for item in value:
                    add(str(item))
        else:
            add(f"--{key}")
            add(str(value))
    out.notes.append(f"--config {path_text}: {len(data)} keys merged before the command line")
    return config_tokens + rest


def _command_line_spelling(spec: Any, value: Any) -> str:
    """How a YAML key the merger refuses is written on the command line: a BooleanOptionalAction's
    ``--X``/``--no-X`` by the value, a flag taking no value alone, else the flag and the value."""
    flag = spec.flag or f"--{spec.dest.replace('_', '-')}"
    if isinstance(value, bool) and spec.action == "BooleanOptionalAction":
        return flag if value else "--no-" + flag[2:]
    if spec.nargs == 0:
        return flag
    items = value if isinstance(value, list) else [value]
    return " ".join([flag, *(str(v).lower() if isinstance(v, bool) else str(v) for v in items)])
