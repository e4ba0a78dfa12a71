#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/trl_vllm_serve.json: what TRL's ``trl vllm-serve`` does with its
argv, per TRL release, read from the PyPI wheels by AST (nothing imported, nothing typed by hand).

For each wheel that has ``trl/scripts/vllm_serve.py`` it records:

- ``fields``: the ``ScriptArguments`` dataclass (name, annotation, default, whether it has one), which
  ``TrlParser`` (transformers' ``HfArgumentParser``) turns into ``--name`` / ``--name-with-dashes`` options;
- ``remaining``: ``forwarded`` when the script parses with ``return_remaining_strings=True`` (1.11.0 and
  later: unknown words are appended to the ``vllm serve`` command), else ``refused`` (HfArgumentParser's
  ``ValueError: Some specified arguments are not used by the HfArgumentParser: [...]``);
- ``command`` (releases with ``build_command``): the ``vllm serve`` argv built from the fields, item by
  item (a literal word, a field's value, a word under a condition), the flags TRL imposes, the vLLM release
  a flag depends on, and the environment ``main`` sets (``VLLM_SERVER_DEV_MODE``);
- ``llm`` (releases without it): the keywords of the ``LLM(...)`` call ``llm_worker`` makes, each a field
  or a literal, the ``os.environ[...]`` writes of the script (data-parallel rank variables, multiproc
  method) and which fields TRL's own FastAPI server uses (``host``, ``port``, ``log_level``);
- ``modules``: which ``python -m`` forms run the CLI (``trl.cli`` is a module with a ``__main__`` guard in
  0.17-0.28, a package without ``__main__.py`` from 0.29, whose ``trl.cli.main`` has one).

Identical records are stored once (``records``); ``releases`` maps each release to its record.

  python scripts/gen_trl_vllm_serve.py DIR_WITH_WHEELS   (pip download trl==V --no-deps -d DIR)
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/trl_vllm_serve.json"
SCRIPT = "trl/scripts/vllm_serve.py"
_WARN = ("warnings.warn", "logger.warning")  # 0.17-0.21 warn, 0.22-0.28 log


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def _literal(node: ast.expr) -> Any:
    return ast.literal_eval(node)


def _fields(tree: ast.Module) -> list[dict[str, Any]]:
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ScriptArguments")
    out: list[dict[str, Any]] = []
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        entry: dict[str, Any] = {"name": stmt.target.id, "type": ast.unparse(stmt.annotation)}
        value = stmt.value
        kw: dict[str, ast.expr] = {}
        if isinstance(value, ast.Call) and ast.unparse(value.func) == "field":
            kw = {k.arg: k.value for k in value.keywords if k.arg}
            if "default" in kw:
                entry["default"] = _literal(kw["default"])
            meta = kw.get("metadata")
            if isinstance(meta, ast.Dict):
                keys = [k.value for k in meta.keys if isinstance(k, ast.Constant)]
                if "choices" in keys:
                    entry["choices"] = _literal(meta.values[keys.index("choices")])
        elif value is not None:
            entry["default"] = _literal(value)
        out.append(entry)
    return out


def _word(node: ast.expr) -> dict[str, Any]:
    """One item of the command list: a literal, a field's value, or a field's choice of two literals."""
    if isinstance(node, ast.Constant):
        return {"lit": node.value}
    if isinstance(node, ast.Attribute) and ast.unparse(node.value) == "script_args":
        return {"field": node.attr}
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "str" and len(node.args) == 1:
        return _word(node.args[0])
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "json.dumps":
        return {"lit": json.dumps(_literal(node.args[0]))}
    if isinstance(node, ast.IfExp) and isinstance(node.test, ast.Attribute):
        return {"field": node.test.attr, "if_true": _literal(node.body), "if_false": _literal(node.orelse)}
    if ast.unparse(node) == "sys.executable":
        return {"lit": "python"}
    raise SystemExit(f"unread command item: {ast.unparse(node)}")


def _condition(test: ast.expr) -> dict[str, str]:
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Attribute)
        and ast.unparse(test.comparators[0]) == "None"
    ):
        return {"not_none": test.left.attr}
    if isinstance(test, ast.Attribute) and ast.unparse(test.value) == "script_args":
        return {"truthy": test.attr}
    if isinstance(test, ast.Call) and ast.unparse(test.func) == "is_vllm_available":
        kw = {k.arg: _literal(k.value) for k in test.keywords}
        return {"vllm_min": str(kw["min_version"])}
    raise SystemExit(f"unread condition: {ast.unparse(test)}")


def _items(value: ast.expr, when: dict[str, str] | None) -> list[dict[str, Any]]:
    if not isinstance(value, ast.List):
        raise SystemExit(f"unread command part: {ast.unparse(value)}")
    return [{**_word(e), **({"when": when} if when else {})} for e in value.elts]


def _command(func: ast.FunctionDef) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    forwarded = False

    def walk(body: list[ast.stmt], when: dict[str, str] | None) -> None:
        nonlocal forwarded
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            if isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == "command":
                items.extend(_items(stmt.value, when))
            elif isinstance(stmt, ast.AugAssign) and ast.unparse(stmt.target) == "command":
                items.extend(_items(stmt.value, when))
            elif isinstance(stmt, ast.If):
                walk(stmt.body, _condition(stmt.test))
                if stmt.orelse:
                    raise SystemExit(f"unread else: {ast.unparse(stmt)}")
            elif isinstance(stmt, ast.Return):
                text = ast.unparse(stmt.value) if stmt.value else ""
                if text != "command + list(extra_args or [])":
                    raise SystemExit(f"unread return: {text}")
                forwarded = True
            else:
                raise SystemExit(f"unread statement: {ast.unparse(stmt)}")

    walk(func.body, None)
    return {"items": items, "extra_args_last": forwarded}


def _env_writes(tree: ast.AST, names: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0]
            if ast.unparse(target.value) in names and isinstance(target.slice, ast.Constant):
                out[str(target.slice.value)] = ast.unparse(node.value)
    return out


def _llm(tree: ast.Module) -> dict[str, Any]:
    # 0.17.0+: each data-parallel worker (llm_worker) builds it; 0.16.0: main itself
    worker = next(
        n
        for name in ("llm_worker", "main")
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name == name
    )
    call = next(
        n for n in ast.walk(worker) if isinstance(n, ast.Call) and ast.unparse(n.func) in ("LLM", "vllm.LLM")
    )
    keywords: dict[str, Any] = {}
    for k in call.keywords:
        if k.arg is None:
            raise SystemExit("LLM(**kwargs) not read")
        v = k.value
        if isinstance(v, ast.Attribute) and ast.unparse(v.value) == "script_args":
            keywords[k.arg] = {"field": v.attr}
        elif isinstance(v, ast.Constant):
            keywords[k.arg] = {"lit": v.value}
        else:
            keywords[k.arg] = {"expr": ast.unparse(v)}
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    uvicorn = next(
        (n for n in ast.walk(main) if isinstance(n, ast.Call) and ast.unparse(n.func) == "uvicorn.run"), None
    )
    server: dict[str, str] = {}
    if uvicorn is not None:
        for k in uvicorn.keywords:
            if k.arg and isinstance(k.value, ast.Attribute) and ast.unparse(k.value.value) == "script_args":
                server[k.arg] = k.value.attr
    return {"keywords": keywords, "env": _env_writes(tree, ("os.environ",)), "uvicorn": server}


def _remaining(source: str) -> str:
    main = source[source.rfind('if __name__ == "__main__"') :]
    return "forwarded" if "return_remaining_strings=True" in main else "refused"


def _cli_warning(source: str) -> dict[str, Any] | None:
    """The CLI's ``warnings.warn`` under ``if script_args.A == N and script_args.B > M`` (0.17-0.28's
    trl/cli.py: the data-parallel crash through the CLI entry point)."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.BoolOp)):
            continue
        # `and torch.cuda.is_available()` (0.24.0): true on the GPU node the server needs, recorded as text
        runtime = [ast.unparse(t) for t in node.test.values if isinstance(t, ast.Call)]
        tests = [t for t in node.test.values if not isinstance(t, ast.Call)]
        if not tests or not all(
            isinstance(t, ast.Compare) and isinstance(t.left, ast.Attribute) for t in tests
        ):
            continue
        body = [b.value for b in node.body if isinstance(b, ast.Expr)]  # the warning right under the test
        warn = next((n for n in body if isinstance(n, ast.Call) and ast.unparse(n.func) in _WARN), None)
        if warn is None:
            continue
        conds = [
            [t.left.attr, type(t.ops[0]).__name__, _literal(t.comparators[0])]  # type: ignore[attr-defined]
            for t in tests
        ]
        return {"when": conds, "message": _literal(warn.args[0]), **({"runtime": runtime} if runtime else {})}
    return None


def _config_handling(source: str) -> dict[str, Any]:
    """What ``TrlParser.parse_args_and_config`` (trl/scripts/utils.py) does with a ``--config`` YAML: its
    keys that are no option become ``--KEY str(value)`` (set_defaults_with_config); the messages it raises,
    as the f-strings' text (``{name}`` where a value goes): an unknown key when the caller does not take
    the remaining strings (0.20.0+), a file that is no mapping (1.10.0+). 0.16-0.19 drop unknown keys."""
    func = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef) and n.name == "parse_args_and_config"
    )
    messages: list[str] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            arg = node.exc.args[0]
            if isinstance(arg, ast.JoinedStr):
                text = "".join(
                    str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"  # type: ignore[attr-defined]
                    for v in arg.values
                )
            elif isinstance(arg, ast.Constant):
                text = str(arg.value)
            else:
                continue
            messages.append(f"{ast.unparse(node.exc.func)}: {text}")
    unknown = next((m for m in messages if "Unknown arguments from config file" in m), None)
    mapping = next((m for m in messages if "YAML mapping" in m), None)
    return {"unknown_keys": unknown, "not_mapping": mapping}


def _vllm_extra(metadata: str) -> str | None:
    """The ``vllm`` requirement of the ``vllm`` extra (``Requires-Dist: vllm<=0.31.0,>=0.22.0; extra ==
    "vllm"``): the vLLM releases the TRL release was made for."""
    for line in metadata.splitlines():
        m = re.match(r'Requires-Dist: vllm\s*([^;]*);.*extra == "vllm"', line)
        if m:
            return m.group(1).strip().strip("()")
    return None


def read_wheel(path: Path) -> tuple[str, dict[str, Any], str | None] | None:
    version = path.name.split("-")[1]
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        if SCRIPT not in names:
            return None
        source = z.read(SCRIPT).decode("utf-8")
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        extra = _vllm_extra(z.read(meta).decode("utf-8"))
        modules = []
        for module, file in (("trl.cli", "trl/cli.py"), ("trl.cli.main", "trl/cli/main.py")):
            if file in names and 'if __name__ == "__main__"' in z.read(file).decode("utf-8"):
                modules.append(module)
        config = _config_handling(z.read("trl/scripts/utils.py").decode("utf-8"))
        cli = [f for f in ("trl/cli.py", "trl/cli/commands/vllm_serve.py") if f in names]
        warning = _cli_warning(z.read(cli[0]).decode("utf-8")) if cli else None
    tree = ast.parse(source)
    record: dict[str, Any] = {"fields": _fields(tree), "remaining": _remaining(source), "modules": modules}
    if warning:
        record["cli_warning"] = warning
    record["config"] = config
    build = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "build_command"), None)
    if build is not None:
        record["command"] = _command(build)
        main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
        record["command"]["env"] = _env_writes(main, ("env",))
    else:
        record["llm"] = _llm(tree)
    return version, record, extra


def main() -> None:
    folder = Path(sys.argv[1])
    records: list[dict[str, Any]] = []
    releases: dict[str, int] = {}
    extras: dict[str, str | None] = {}
    for wheel in sorted(folder.glob("trl-*.whl"), key=lambda p: _key(p.name.split("-")[1])):
        read = read_wheel(wheel)
        if read is None:
            continue
        version, record, extras[version] = read
        if record not in records:
            records.append(record)
        releases[version] = records.index(record)
    data = {
        "source": f"PyPI wheels trl {min(releases, key=_key)}-{max(releases, key=_key)}: {SCRIPT}, "
        "trl/cli.py or trl/cli/main.py",
        "file": SCRIPT,
        "releases": releases,
        "vllm_extra": extras,
        "records": records,
    }
    OUT.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(releases)} releases, {len(records)} distinct records")


if __name__ == "__main__":
    main()
