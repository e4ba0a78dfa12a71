"""Dump a framework's real argument parser as JSON. Runs *inside* a resolver environment, by path:

    <env>/bin/python dump_parser.py sglang|vllm [--out FILE]

Stdlib-only at module top (it runs in the framework's interpreter, where argtrace is not installed). The
framework is imported only inside the functions below, with the stubs dir on ``PYTHONPATH``.

SGLang: the parser ``prepare_server_args`` builds (``argparse.ArgumentParser(prog="sglang serve")`` +
``ServerArgs.add_cli_args``), checked against that function's source. vLLM: ``make_arg_parser`` on a
``FlexibleArgumentParser``, as ``vllm serve`` builds it.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import functools
import inspect
import io
import json
import logging
import os
import re
import sys
import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STANDARD_ACTIONS = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_AppendAction": "append",
    "_AppendConstAction": "append_const",
    "_ExtendAction": "extend",
    "_CountAction": "count",
    "_HelpAction": "help",
    "_VersionAction": "version",
    "_SubParsersAction": "parsers",
    "BooleanOptionalAction": "BooleanOptionalAction",
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def jsonable(value: Any) -> Any:
    """A JSON-able rendering of a default/const/choice: plain values as they are, others as {"repr": ...}."""
    if isinstance(value, enum.Enum):
        return {"repr": repr(value), "value": jsonable(value.value)}
    if isinstance(value, (list, tuple)):
        items = [jsonable(v) for v in value]
        return items
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return (
                {k: jsonable(v) for k, v in value.items()} if "repr" not in value else {"repr": repr(value)}
            )
        return {"repr": repr(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"repr": repr(value)}
        return value
    if value is argparse.SUPPRESS:
        return value
    return {"repr": repr(value)}


def callable_name(fn: Any) -> str | None:
    if fn is None:
        return None
    if fn in (int, float, str, bool):
        return fn.__name__
    if fn is json.loads:
        return "json.loads"
    if isinstance(fn, functools.partial):
        inner = callable_name(fn.func)
        return f"functools.partial({inner})"
    module = getattr(fn, "__module__", None) or type(fn).__module__
    qual = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{qual}"


def closure_inner(fn: Any, depth: int = 0) -> list[str] | None:
    """What a converter closure wraps: the callables in its closure cells (vLLM's
    ``optional_type(int)`` -> ``["int"]``, ``parse_dataclass`` -> the config class), or a partial's
    function and arguments. None for plain callables."""
    if fn is None or fn in (int, float, str, bool) or fn is json.loads:
        return None
    if isinstance(fn, functools.partial):
        items = [callable_name(fn.func)] + [callable_name(a) if callable(a) else repr(a) for a in fn.args]
        return [i for i in items if i]
    cells = getattr(fn, "__closure__", None) or ()
    out = []
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value) and value is not fn:
            name = callable_name(value)
            nested = closure_inner(value, depth + 1) if depth < 3 and not isinstance(value, type) else None
            if name and nested:
                name = f"{name}({', '.join(nested)})"
            if name:
                out.append(name)
    return out or None


def action_name(action: argparse.Action) -> tuple[str, str]:
    cls = type(action)
    if cls.__module__ == "argparse" and cls.__name__ in STANDARD_ACTIONS:
        return STANDARD_ACTIONS[cls.__name__], "argparse"
    return cls.__name__, cls.__module__


def behaves_like(action: argparse.Action) -> str:
    """The standard action a custom action resembles (by its class hierarchy and nargs)."""
    for base in type(action).__mro__:
        if base.__module__ == "argparse" and base.__name__ in STANDARD_ACTIONS:
            return STANDARD_ACTIONS[base.__name__]
    if action.nargs == 0:
        return "store_const"
    return "store"


def sample_value(action: argparse.Action) -> Any:
    if action.nargs == 0:
        return []
    value: Any = "1"
    if action.choices:
        value = next(iter(action.choices))
    if action.nargs in ("+", "*") or isinstance(action.nargs, int):
        return [value]
    return value


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(record.getMessage())
        except Exception:  # pragma: no cover
            self.messages.append(str(record.msg))


def probe_action(parser: argparse.ArgumentParser, action: argparse.Action) -> dict[str, Any]:
    """Call a custom action once in a sandbox: what it prints, logs, warns or raises, and what it stores."""
    option = next((o for o in action.option_strings if o.startswith("--")), None) or (
        action.option_strings[0] if action.option_strings else None
    )
    ns = argparse.Namespace()
    sentinel = object()
    setattr(ns, action.dest, sentinel)
    capture = _Capture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    out = io.StringIO()
    raised = None
    try:
        with (
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(out),
        ):
            warnings.simplefilter("always")
            try:
                action(parser, ns, sample_value(action), option)
            except SystemExit as exc:
                raised = f"SystemExit({exc.code})"
            except Exception as exc:
                raised = f"{type(exc).__name__}: {exc}"
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)
    texts = [ANSI.sub("", m).strip() for m in capture.messages]
    texts += [str(w.message) for w in caught]
    printed = ANSI.sub("", out.getvalue()).strip()
    if printed:
        texts.append(printed)
    if raised:
        texts.append(raised)
    stored = getattr(ns, action.dest, sentinel)
    result: dict[str, Any] = {"messages": texts}
    if stored is not sentinel:
        result["stored"] = jsonable(stored)
    if raised:
        result["raised"] = raised
    return result


def extra_attrs(action: argparse.Action) -> dict[str, Any]:
    standard = set(vars(argparse.Action(["--x"], "x")))
    out = {}
    for key, value in vars(action).items():
        if key in standard or key.startswith("_") or key == "container":
            continue
        rendered = jsonable(value)
        if isinstance(rendered, dict) and "repr" in rendered and len(rendered["repr"]) > 200:
            continue
        out[key] = rendered
    return out


def dump_action(
    parser: argparse.ArgumentParser, action: argparse.Action, group: str | None, deprecated_set: set[Any]
) -> dict[str, Any]:
    name, module = action_name(action)
    help_text = action.help
    entry: dict[str, Any] = {
        "option_strings": list(action.option_strings),
        "dest": action.dest,
        "action": name,
        "action_module": module,
        "nargs": action.nargs,
        "const": jsonable(action.const),
        "type": callable_name(action.type),
        "choices": [jsonable(c) for c in action.choices] if action.choices is not None else None,
        "default": jsonable(action.default),
        "required": bool(action.required),
        "help": help_text if isinstance(help_text, str) else None,
        "metavar": jsonable(action.metavar),
        "deprecated": False,
        "group": group,
    }
    if help_text == argparse.SUPPRESS:
        entry["suppressed"] = True
    inner = closure_inner(action.type)
    if inner:
        entry["type_inner"] = inner
    deprecated: Any = False
    source = None
    if getattr(action, "deprecated", False) or action in deprecated_set:
        deprecated, source = True, "parser"
    if module != "argparse":
        entry["behaves_like"] = behaves_like(action)
        attrs = extra_attrs(action)
        if attrs:
            entry["action_attrs"] = attrs
        if name not in ("_HelpAction",) and action.option_strings:
            probe = probe_action(parser, action)
            hits = [m for m in probe["messages"] if "deprecat" in m.lower()]
            if hits:
                deprecated, source = hits[0], "action"
            if probe.get("raised"):
                # the action refuses the flag outright (a removed flag that errors with a hint)
                entry["removed"] = next(
                    (m for m in probe["messages"] if m != probe["raised"]), probe["raised"]
                )
            elif probe["messages"] and not hits:
                entry["action_messages"] = probe["messages"]
    if deprecated is False and isinstance(help_text, str) and re.search(r"\bdeprecated\b", help_text, re.I):
        deprecated, source = True, "help"
    entry["deprecated"] = deprecated
    if source:
        entry["deprecated_source"] = source
    json_reason = json_flag_reason(action)
    if json_reason:
        entry["json"] = json_reason
    return entry


def json_flag_reason(action: argparse.Action) -> str | None:
    """Why a flag's value is JSON: its type is json.loads, or its type turns a JSON object into a dict /
    config object, or (str-typed) its help says the value is JSON."""
    t = action.type
    if t is json.loads:
        return "type json.loads"
    if action.nargs == 0 or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
        return None
    if t is not None and t not in (int, float, str, bool):
        for probe in ('{"argtrace_probe": 1}', "{}"):
            try:
                with (
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(io.StringIO()),
                    warnings.catch_warnings(),
                ):
                    warnings.simplefilter("ignore")
                    value = t(probe)  # type: ignore[operator]
            except BaseException:
                continue
            if isinstance(value, dict) or (
                value is not None and not isinstance(value, (str, int, float, bool, list, tuple))
            ):
                return f"type {callable_name(t)} parses a JSON object"
    if (t in (None, str)) and isinstance(action.help, str) and re.search(r"\bJSON\b", action.help):
        return "help says JSON"
    return None


def group_titles(parser: argparse.ArgumentParser) -> dict[int, str | None]:
    titles: dict[int, str | None] = {}
    for group in parser._action_groups:
        for action in group._group_actions:
            titles[id(action)] = group.title
    return titles


def dump_parser(parser: argparse.ArgumentParser) -> dict[str, Any]:
    titles = group_titles(parser)
    deprecated_set = set(getattr(parser, "_deprecated", set()) or ())
    options: list[dict[str, Any]] = []
    positionals: list[dict[str, Any]] = []
    for action in parser._actions:
        entry = dump_action(parser, action, titles.get(id(action)), deprecated_set)
        (options if action.option_strings else positionals).append(entry)
    return {
        "parser": {
            "class": type(parser).__name__,
            "class_module": type(parser).__module__,
            "prog": parser.prog,
            "allow_abbrev": parser.allow_abbrev,
            "prefix_chars": parser.prefix_chars,
            "fromfile_prefix_chars": parser.fromfile_prefix_chars,
            "add_help": parser.add_help,
            "exit_on_error": getattr(parser, "exit_on_error", True),
            "conflict_handler": parser.conflict_handler,
        },
        "options": options,
        "positionals": positionals,
    }


def where(obj: Any) -> str:
    """``pkg/mod.py:LINE`` of a function/class, relative to site-packages."""
    try:
        path = inspect.getsourcefile(obj) or "?"
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return "?"
    return f"{rel(path)}:{line}"


def rel(path: str) -> str:
    for entry in sorted(sys.path, key=len, reverse=True):
        if entry and path.startswith(entry.rstrip("/") + "/") and "site-packages" in entry:
            return path[len(entry.rstrip("/")) + 1 :]
    return path


def source_line(obj: Any, needle: str) -> str | None:
    """``file:line`` of the first source line of ``obj`` containing ``needle``."""
    try:
        lines, start = inspect.getsourcelines(obj)
        path = inspect.getsourcefile(obj) or "?"
    except (OSError, TypeError):
        return None
    for i, line in enumerate(lines):
        if needle in line:
            return f"{rel(path)}:{start + i}"
    return None


def qualname_of(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def sglang_schema() -> dict[str, Any]:
    import sglang.srt.server_args as sa

    src = inspect.getsource(sa.prepare_server_args)
    if "ServerArgs.add_cli_args(parser)" not in src or "argparse.ArgumentParser(" not in src:
        raise RuntimeError("prepare_server_args no longer builds argparse.ArgumentParser + add_cli_args")
    m = re.search(r"argparse\.ArgumentParser\(([^)]*)\)", src)
    kwargs = {}
    if m and m.group(1).strip():
        kwargs = eval(f"dict({m.group(1)})", {})  # the literal kwargs of that call, e.g. prog="sglang serve"
    parser = argparse.ArgumentParser(**kwargs)
    sa.ServerArgs.add_cli_args(parser)
    out = dump_parser(parser)
    rewrites: list[dict[str, Any]] = []
    if '"--config" in argv' in src:
        merger_where = None
        try:
            mod = "sglang.srt.utils.server_args_config_parser"
            try:
                __import__(mod)
            except ImportError:
                mod = "sglang.srt.server_args_config_parser"
                __import__(mod)
            merger = sys.modules[mod].ConfigArgumentMerger
            merger_where = where(merger.merge_config_with_args)
        except Exception:
            merger = None
        rewrites.append(
            {
                "name": "config_yaml",
                "description": "`--config FILE.yaml` (exactly one) is replaced by the YAML's keys turned "
                "into `--key value` words (store_true keys become bare flags when true), placed "
                "before the rest of argv so later command-line words win",
                "where": source_line(sa.prepare_server_args, '"--config" in argv'),
                "implementation": merger_where,
            }
        )
    entrypoints = [
        {
            "command": "python -m sglang.launch_server",
            "argv": "sys.argv[1:]",
            "function": "sglang.srt.server_args.prepare_server_args",
            "where": where(sa.prepare_server_args),
        }
    ]
    try:
        import sglang.cli.serve as serve

        serve_src = inspect.getsource(serve)
        entry: dict[str, Any] = {
            "command": "sglang serve",
            "argv": "words after `serve`",
            "function": "sglang.cli.serve.serve",
            "where": where(serve.serve),
        }
        entrypoints.append(entry)
        if hasattr(serve, "_normalize_positional_model_path"):
            rewrites.append(
                {
                    "name": "serve_positional_model",
                    "description": "`sglang serve MODEL ...`: a first word not starting with '-' becomes "
                    "`--model-path MODEL` (only for `sglang serve`)",
                    "where": where(serve._normalize_positional_model_path),
                    "entrypoint": "sglang serve",
                }
            )
        if hasattr(serve, "_extract_model_type_override"):
            fn = serve._extract_model_type_override
            fsrc = inspect.getsource(fn)
            opt = re.findall(r'"(--[a-z-]+)"', fsrc)
            rewrites.append(
                {
                    "name": "serve_model_type_selector",
                    "description": "`sglang serve` removes its own selector flag and value from argv before "
                    "the server parser sees it",
                    "flags": sorted(set(opt)),
                    "where": where(fn),
                    "entrypoint": "sglang serve",
                }
            )
        del serve_src
    except Exception as exc:  # sglang serve missing in this version
        entrypoints.append({"command": "sglang serve", "error": f"{type(exc).__name__}: {exc}"})
    if "_radix_eviction_policy_explicitly_set" in src:
        rewrites.append(
            {
                "name": "explicit_flag_probe",
                "description": "prepare_server_args records whether `--radix-eviction-policy` appeared in "
                "argv (after the config merge) on the parsed namespace",
                "where": source_line(sa.prepare_server_args, "radix_eviction_policy_explicitly_set ="),
            }
        )
    out["parser"]["argv_rewrites"] = rewrites
    out["parser"]["entrypoints"] = entrypoints
    out["parser"]["parse_method"] = (
        "parse_args (unknown flags are an error)" if "parse_args(argv)" in src else "see prepare_server_args"
    )
    out["parser"]["built_by"] = where(sa.prepare_server_args)
    return out


def vllm_schema() -> dict[str, Any]:
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser  # <= 0.11

    try:
        from vllm.entrypoints.common.cli_args import make_arg_parser
    except ImportError:
        try:
            from vllm.entrypoints.launchers.cli_args import make_arg_parser  # 0.29-0.32
        except ImportError:
            from vllm.entrypoints.openai.cli_args import make_arg_parser  # older layout
    import importlib.util

    if importlib.util.find_spec("vllm.entrypoints.cli") is not None:
        import vllm.entrypoints.cli.serve as serve
    else:  # <= 0.6: `vllm serve` lives in vllm/scripts.py
        serve = None

    parser = FlexibleArgumentParser(prog="vllm serve", usage="vllm serve [model_tag] [options]")
    parser = make_arg_parser(parser)
    serve_only: list[str] = []
    serve_built_by = None
    if not any(a.dest == "model_tag" for a in parser._actions):
        # vLLM <= 0.9: make_arg_parser has no model_tag; `vllm serve` adds it (and --config) to its
        # subparser first. The schema is the `vllm serve` parser, built by the release's own code.
        serve_parser, serve_built_by = _old_serve_parser(serve, FlexibleArgumentParser)
        plain = {s for a in parser._actions for s in a.option_strings}
        serve_only = [
            a.option_strings[0] if a.option_strings else a.dest
            for a in serve_parser._actions
            if not a.option_strings or not set(a.option_strings) & plain
        ]
        parser = serve_parser
    out = dump_parser(parser)
    pa = FlexibleArgumentParser.parse_args
    psrc = inspect.getsource(pa)
    rewrites: list[dict[str, Any]] = []

    def add(name: str, needle: str, description: str, quotes_alike: bool = False, **extra: Any) -> None:
        # vLLM wrote single-quoted strings until its formatter changed (0.9): `replace('_', '-')` in 0.6-0.8
        # is the same rewrite as `replace("_", "-")` later (``quotes_alike``). Not so `'-O'`: 0.6-0.8 split
        # `-O3` into `-O 3` for their own -O flag, not the later `--optimization-level` shorthand.
        spellings = (needle, needle.replace('"', "'")) if quotes_alike else (needle,)
        for spelling in dict.fromkeys(spellings):
            if spelling in psrc:
                rewrites.append(
                    {"name": name, "description": description, "where": source_line(pa, spelling), **extra}
                )
                return

    add(
        "serve_model_flag_to_positional",
        'args[0] == "serve"',
        "`vllm serve ... --model M ...` moves M to the positional model_tag (with a warning)",
        entrypoint="vllm serve",
    )
    add(
        "config_yaml",
        "_pull_args_from_config",
        "`--config FILE.yaml` is expanded into `--key value` words (inserted after the model tag; command "
        "line wins)",
        implementation=where(FlexibleArgumentParser._pull_args_from_config)
        if hasattr(FlexibleArgumentParser, "_pull_args_from_config")
        else None,
    )
    add(
        "underscore_to_dash",
        'replace("_", "-")',
        "in `--long_option[=value]` words, underscores before the first '.' (and before '=') become dashes",
        quotes_alike=True,
    )
    add(
        "optimization_level_shorthand",
        '"-O"',
        "`-O3`, `-O=3`, `-Odecode` and `-O N` become `--optimization-level N`",
    )
    add(
        "dotted_keys",
        '"." in processed_arg',
        "`--x.y.z V` / `--x.y=V` words are collected into one JSON object per flag and appended as "
        '`--x \'{"y": {"z": V}}\'` (values JSON-decoded, else human-readable ints like 80g, else strings)',
    )
    add("list_append_plus", 'endswith("+")', "`--x.key+ a,b` appends list elements to a JSON flag's key")
    add("help_search", '"--help="', "`--help=KEYWORD` searches the help")
    out["parser"]["argv_rewrites"] = rewrites
    if serve is not None:
        serve_entry = {
            "command": "vllm serve",
            "argv": "words after `serve`",
            "function": qualname_of(serve.ServeSubcommand),
            "where": where(serve.ServeSubcommand.subparser_init),
        }
    else:
        import vllm.scripts as scripts

        serve_entry = {
            "command": "vllm serve",
            "argv": "words after `serve`",
            "function": "vllm.scripts.serve",
            "where": where(scripts.serve),
        }
    if serve_built_by is not None:
        serve_entry["parser_built_by"] = serve_built_by
    out["parser"]["entrypoints"] = [serve_entry]
    try:
        import vllm.entrypoints.openai.api_server as api

        api_src = inspect.getsource(api)
        main_at = api_src.find('if __name__ == "__main__"')
        if main_at >= 0:
            block = api_src[main_at:]
            entry: dict[str, Any] = {
                "command": "python -m vllm.entrypoints.openai.api_server",
                "argv": "sys.argv[1:]",
                "function": "make_arg_parser (same parser as vllm serve)",
                "where": f"{rel(api.__file__)}:{api_src[:main_at].count(chr(10)) + 1}",
            }
            if "deprecated" in block:
                entry["deprecated"] = True
            if serve_only:  # the module parses make_arg_parser alone: no model_tag, no --config
                entry["function"] = "make_arg_parser (the vllm serve parser without what `lacks` names)"
                entry["lacks"] = serve_only
            out["parser"]["entrypoints"].append(entry)
    except Exception as exc:
        out["parser"]["entrypoints"].append(
            {
                "command": "python -m vllm.entrypoints.openai.api_server",
                "error": f"{type(exc).__name__}: {exc}",
            }
        )
    out["parser"]["parse_method"] = "parse_args (FlexibleArgumentParser.parse_args rewrites argv first)"
    out["parser"]["built_by"] = where(make_arg_parser)
    return out


def _old_serve_parser(serve: Any, parser_class: Any) -> tuple[argparse.ArgumentParser, str]:
    """The `vllm serve` subparser of a vLLM release whose ``make_arg_parser`` has no ``model_tag``, and
    where it is built: ``ServeSubcommand.subparser_init`` (0.7-0.9), else (0.6) ``vllm/scripts.py``'s
    ``main``, run with its ``parse_args`` stopped before anything is parsed or started."""
    top = parser_class(prog="vllm")
    if serve is not None and hasattr(getattr(serve, "ServeSubcommand", None), "subparser_init"):
        subparsers = top.add_subparsers(dest="subparser")
        built: argparse.ArgumentParser = serve.ServeSubcommand().subparser_init(subparsers)
        return built, where(serve.ServeSubcommand.subparser_init)
    import vllm.scripts as scripts

    class _Built(BaseException):
        pass

    def stop(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Built(self)

    real_parse, real_argv = parser_class.parse_args, sys.argv
    parser_class.parse_args, sys.argv = stop, ["vllm", "serve"]
    try:
        scripts.main()
        raise RuntimeError("vllm.scripts.main returned without parsing")
    except _Built as done:
        top = done.args[0]
    finally:
        parser_class.parse_args, sys.argv = real_parse, real_argv
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction) and "serve" in action.choices:
            return action.choices["serve"], where(scripts.main)
    raise RuntimeError("vllm.scripts.main built no serve subparser")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("framework", choices=["sglang", "vllm"])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    logging.disable(logging.CRITICAL)  # framework import chatter; probes re-enable via their own handler
    logging.disable(logging.NOTSET)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # keep framework prints out of the JSON
    try:
        data = sglang_schema() if args.framework == "sglang" else vllm_schema()
    finally:
        sys.stdout = real_stdout
    import importlib.metadata as md

    data["framework"] = args.framework
    data["version"] = md.version(args.framework)
    data["python"] = ".".join(map(str, sys.version_info[:3]))
    text = json.dumps(data, default=lambda o: {"repr": repr(o)})
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        real_stdout.write(text)
    os._exit(0)  # frameworks leave non-daemon threads behind


if __name__ == "__main__":
    sys.exit(main())
