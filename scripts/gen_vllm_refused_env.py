#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_refused_env.json: the environment variables a vLLM release
refuses at start-up, read from the releases' wheels by AST.

Every engine start runs ``Platform.validate_environ`` (vllm/platforms/interface.py, from
``EngineArgs.create_engine_config``). From vLLM 0.34.0 it raises for a variable the release removed::

    if hint := envs.removed_environment_variables.get(env):
        raise ValueError(f"{env} has been removed. {hint}")

(``removed_environment_variables`` in vllm/envs.py: VLLM_MARLIN_INPUT_DTYPE, "Marlin no longer supports
8-bit activations. ...") and for a variable it checks by name::

    if env == "VLLM_USE_V2_MODEL_RUNNER":
        if value != "1":
            raise ValueError(f"VLLM_USE_V2_MODEL_RUNNER={value} is no longer supported: ...")

Kept per release: ``removed`` (name -> hint, with the refusal's words and line) and ``checked`` (name, the
one value taken, the words with ``{value}``, line). A release without them holds ``{"removed": {},
"checked": []}``. Nothing is typed by hand.

  pip download vllm==0.34.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_refused_env.py [--check] /tmp/vw/vllm-*.whl
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_refused_env.json"
GENERATOR = "scripts/gen_vllm_refused_env.py"
ENVS = "vllm/envs.py"
PLATFORM = "vllm/platforms/interface.py"
TABLE = "removed_environment_variables"


def _text(node: ast.expr | None) -> str | None:
    """A string constant, or an f-string with each field as ``{name}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append("{" + value.value.id + "}")
            else:
                return None
        return "".join(parts)
    return None


def _raised(body: list[ast.stmt]) -> tuple[str, int] | None:
    for stmt in body:
        if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
            words = _text(stmt.exc.args[0])
            if words is not None:
                return words, stmt.lineno
    return None


def removed_table(envs: str) -> dict[str, str]:
    """``removed_environment_variables`` of vllm/envs.py: name -> hint ({} without it)."""
    for node in ast.parse(envs).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == TABLE and isinstance(node.value, ast.Dict):
            out = {}
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                name, hint = _text(key), _text(value)
                if name is not None and hint is not None:
                    out[name] = hint
            return out
    return {}


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What one release's validate_environ refuses."""
    removed: dict[str, Any] = {}
    checked: list[dict[str, Any]] = []
    hints = removed_table(texts.get(ENVS, ""))
    method = next(
        (
            n
            for n in ast.walk(ast.parse(texts.get(PLATFORM, "")))
            if isinstance(n, ast.FunctionDef) and n.name == "validate_environ"
        ),
        None,
    )
    if method is None:
        return {"removed": removed, "checked": checked}
    for node in ast.walk(method):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        # if hint := envs.removed_environment_variables.get(env): raise ...
        if isinstance(test, ast.NamedExpr) and TABLE in ast.unparse(test.value):
            said = _raised(node.body)
            if said is not None:
                for name, hint in sorted(hints.items()):
                    removed[name] = {"hint": hint, "message": said[0], "where": f"{PLATFORM}:{said[1]}"}
        # if env == "NAME": if value != "V": raise ...
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
            and isinstance(test.comparators[0].value, str)
        ):
            name = test.comparators[0].value
            for inner in node.body:
                if (
                    isinstance(inner, ast.If)
                    and isinstance(inner.test, ast.Compare)
                    and isinstance(inner.test.ops[0], ast.NotEq)
                    and isinstance(inner.test.comparators[0], ast.Constant)
                ):
                    said = _raised(inner.body)
                    if said is not None:
                        checked.append(
                            {
                                "name": name,
                                "taken": inner.test.comparators[0].value,
                                "message": said[0],
                                "where": f"{PLATFORM}:{said[1]}",
                            }
                        )
    return {"removed": removed, "checked": checked}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), lambda m: m in (ENVS, PLATFORM), "vllm")
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {PLATFORM} (Platform.validate_environ), {ENVS} ({TABLE})",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
