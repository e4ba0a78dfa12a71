"""A release's parser read from its source by AST, for a release whose parser module will not import here
(not even as an overlay, ``schema_gen``): the ``add_argument`` calls of SGLang's
``ServerArgs.add_cli_args`` with their literal arguments, ``default=ServerArgs.FIELD`` resolved from the
dataclass's field defaults. What is not a literal (a computed ``choices`` list, a call) is recorded as
``{"repr": <source text>}`` so it is never mistaken for the real value. The schema says ``"source": "ast"``.

vLLM builds its parser from dataclass introspection at run time (``EngineArgs.add_cli_args`` ->
``get_kwargs``); its arguments are not in the source as calls, so vLLM has no AST mode (the generator
reports the release as not extracted).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STANDARD = {
    "store",
    "store_true",
    "store_false",
    "store_const",
    "append",
    "append_const",
    "extend",
    "count",
    "help",
    "version",
}
_IMPLICIT_DEFAULT = {"store_true": False, "store_false": True, "count": None}


class _Values:
    """Literal evaluation with the module's constant assignments and the dataclass's defaults."""

    def __init__(self, module: ast.Module, fields: dict[str, Any]) -> None:
        self.constants: dict[str, Any] = {}
        self.fields = fields
        for stmt in module.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                ok, value = self.value(stmt.value)
                if ok:
                    self.constants[stmt.targets[0].id] = value

    def value(self, node: ast.AST | None) -> tuple[bool, Any]:
        if node is None:
            return True, None
        try:
            return True, ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Name) and node.id in self.constants:
            return True, self.constants[node.id]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ServerArgs"
            and node.attr in self.fields
        ):
            return True, self.fields[node.attr]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            ok_l, left = self.value(node.left)
            ok_r, right = self.value(node.right)
            if ok_l and ok_r:
                try:
                    return True, left + right
                except TypeError:
                    pass
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e) for e in node.elts]
            if all(ok for ok, _ in items):
                return True, [v for _, v in items]
        return False, None

    def jsonable(self, node: ast.AST | None) -> Any:
        ok, value = self.value(node)
        if not ok:
            return {"repr": ast.unparse(node) if node is not None else "None"}
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return {"repr": repr(value)}
        return list(value) if isinstance(value, tuple) else value


def _class(module: ast.Module, name: str) -> ast.ClassDef | None:
    return next((n for n in module.body if isinstance(n, ast.ClassDef) and n.name == name), None)


def dataclass_defaults(cls: ast.ClassDef) -> dict[str, Any]:
    """``{field: default}`` of the literal defaults in a dataclass body (``field(default_factory=list)``
    is ``[]``; other non-literals are left out)."""
    out: dict[str, Any] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            node = stmt.value
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("field"):
                kw = {k.arg: k.value for k in node.keywords}
                if "default" in kw:
                    node = kw["default"]
                elif "default_factory" in kw and ast.unparse(kw["default_factory"]) in ("list", "dict"):
                    out[stmt.target.id] = [] if ast.unparse(kw["default_factory"]) == "list" else {}
                    continue
                else:
                    continue
            try:
                out[stmt.target.id] = ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
    return out


def _help_action() -> dict[str, Any]:
    return {
        "option_strings": ["-h", "--help"],
        "dest": "help",
        "action": "help",
        "action_module": "argparse",
        "nargs": 0,
        "const": None,
        "type": None,
        "choices": None,
        "default": "==SUPPRESS==",
        "required": False,
        "help": "show this help message and exit",
        "metavar": None,
        "deprecated": False,
        "group": "options",
    }


def sglang_options(source: str) -> list[dict[str, Any]]:
    """The options ``ServerArgs.add_cli_args`` registers, in order, as dump_parser writes them."""
    module = ast.parse(source)
    cls = _class(module, "ServerArgs")
    if cls is None:
        raise ValueError("no ServerArgs class")
    fn = next(
        (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args"),
        None,
    )
    if fn is None:
        raise ValueError("no ServerArgs.add_cli_args")
    values = _Values(module, dataclass_defaults(cls))
    groups: dict[str, str] = {}  # variable -> argument group title
    options = [_help_action()]
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "add_argument_group"
            and node.value.args
        ):
            ok, title = values.value(node.value.args[0])
            groups[node.targets[0].id] = str(title) if ok else ast.unparse(node.value.args[0])
    calls = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument"
    ]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        strings = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not strings or not all(s.startswith("-") for s in strings):
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        longs = [s for s in strings if s.startswith("--")]
        dest = (
            values.jsonable(kw["dest"])
            if "dest" in kw
            else (longs or strings)[0].lstrip("-").replace("-", "_")
        )
        action_ok, action = values.value(kw.get("action"))
        action_name = action if action_ok and isinstance(action, str) else None
        if action_name is None and "action" in kw:
            action_name = ast.unparse(kw["action"])
        action_name = action_name or "store"
        standard = action_name in _STANDARD or action_name == "BooleanOptionalAction"
        receiver = call.func.value  # type: ignore[attr-defined]
        group = groups.get(receiver.id) if isinstance(receiver, ast.Name) else None
        nargs = (
            values.jsonable(kw.get("nargs"))
            if "nargs" in kw
            else (0 if action_name in _IMPLICIT_DEFAULT else None)
        )
        if "default" in kw:
            default = values.jsonable(kw["default"])
        else:
            default = _IMPLICIT_DEFAULT.get(action_name)
        type_node = kw.get("type")
        entry: dict[str, Any] = {
            "option_strings": strings,
            "dest": dest,
            "action": action_name,
            "action_module": "argparse" if standard else "?",
            "nargs": nargs,
            "const": values.jsonable(kw.get("const")),
            "type": None if type_node is None else ast.unparse(type_node),
            "choices": values.jsonable(kw["choices"]) if "choices" in kw else None,
            "default": default,
            "required": bool(values.value(kw.get("required"))[1]) if "required" in kw else False,
            "help": (lambda h: h if isinstance(h, str) else None)(values.jsonable(kw.get("help"))),
            "metavar": values.jsonable(kw.get("metavar")),
            "deprecated": False,
            "group": group or "options",
            "where": f"sglang/srt/server_args.py:{call.lineno}",
        }
        if isinstance(entry["help"], str) and "deprecated" in entry["help"].lower():
            entry["deprecated"], entry["deprecated_source"] = True, "help"
        if not standard:
            entry["behaves_like"] = "store"
        options.append(entry)
    return options


def schema_by_ast(framework: str, version: str, unpacked: Path, errors: list[str]) -> dict[str, Any]:
    """The schema of an SGLang release from its unpacked wheel's ``server_args.py`` (see the module doc)."""
    if framework != "sglang":
        raise ValueError(f"no AST mode for {framework} (its parser is built by introspection at run time)")
    from argtrace.resolver import schema_gen

    note = json.loads((unpacked / schema_gen.WHEEL_NOTE).read_text())
    path = unpacked / "sglang" / "srt" / "server_args.py"
    options = sglang_options(path.read_text(encoding="utf-8"))
    dumped = {
        "parser": {
            "class": "ArgumentParser",
            "class_module": "argparse",
            "prog": None,
            "allow_abbrev": True,
            "prefix_chars": "-",
            "fromfile_prefix_chars": None,
            "add_help": True,
            "exit_on_error": True,
            "conflict_handler": "error",
            "argv_rewrites": [],
            "entrypoints": [
                {
                    "command": "python -m sglang.launch_server",
                    "argv": "sys.argv[1:]",
                    "function": "sglang.srt.server_args.prepare_server_args",
                }
            ],
            "parse_method": "parse_args (unknown flags are an error)",
            "built_by": "sglang/srt/server_args.py (ServerArgs.add_cli_args, read by AST)",
        },
        "options": options,
        "positionals": [],
    }
    schema = schema_gen.finish_schema(
        framework,
        version,
        dumped,
        unpacked,
        source="ast",
        wheel=note["wheel"],
        wheel_sha256=note["wheel_sha256"],
        generated_with={
            "method": "ast",
            "from": f"{framework}=={version} wheel from PyPI "
            f"({note['wheel']}, sha256 {note['wheel_sha256']})",
            "why": [e.splitlines()[-1] if e.splitlines() else e for e in errors][-2:],
        },
    )
    return schema
