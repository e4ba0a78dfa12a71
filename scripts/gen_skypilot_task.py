#!/usr/bin/env python3
"""Write ``src/argtrace/data/skypilot_task.json`` from SkyPilot's own code (a wheel, never imported).

    pip download skypilot==0.14.1 --no-deps -d /tmp/sky      # and 0.8.1, 0.10.0 into /tmp/sky/old
    python3 scripts/gen_skypilot_task.py /tmp/sky/skypilot-0.14.1-py3-none-any.whl \
        --older /tmp/sky/old/skypilot-0.8.1-py3-none-any.whl /tmp/sky/old/skypilot-0.10.0-py3-none-any.whl
    python3 scripts/gen_skypilot_task.py --check      # the JSON is well formed and names its sources

What it reads (each recorded with FILE:LINE in the JSON):

* the top-level keys of a task YAML: ``get_task_schema()['properties']`` in ``sky/utils/schemas.py``
  (the schema has ``additionalProperties: False``, so no other key is a task's), a ``**function()`` spread
  in it read as the keys of the dict that function returns; with ``--older WHEEL...``, the keys those
  releases took that the newest refuses (``former_task_keys``: ``experimental:``);
* the variable names: the ``SKYPILOT_*`` constants of ``sky/skylet/constants.py`` (f-strings over
  ``SKYPILOT_ENV_VAR_PREFIX`` evaluated here);
* which variables the ``run:`` script gets: every ``sky_env_vars_dict['{constants.NAME}']`` and
  ``sky_env_vars_dict['NAME']`` assignment in ``sky/backends/task_codegen.py``;
* which variables the ``setup:`` script gets: every ``setup_envs[...]`` assignment in
  ``CloudVmRayBackend._setup`` (``sky/backends/cloud_vm_ray_backend.py``) and in ``task_codegen.py``;
* how values reach both scripts: ``make_task_bash_script`` in ``sky/skylet/log_lib.py`` (``export
  NAME=<shlex.quote(value)>`` lines after ``source ~/.bashrc`` and ``cd`` into the work directory).
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "argtrace" / "data" / "skypilot_task.json"


def _read(wheel: zipfile.ZipFile, path: str) -> str:
    return wheel.read(path).decode()


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def _returned_dict(tree: ast.Module, name: str) -> ast.Dict | None:
    """The dict literal a module-level function ``name`` returns (None: not one)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            ret = next((n for n in ast.walk(node) if isinstance(n, ast.Return)), None)
            return ret.value if ret is not None and isinstance(ret.value, ast.Dict) else None
    return None


def task_keys(text: str) -> tuple[list[str], int]:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "get_task_schema":
            ret = next(n for n in ast.walk(node) if isinstance(n, ast.Return))
            assert isinstance(ret.value, ast.Dict)
            for key, value in zip(ret.value.keys, ret.value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "properties":
                    assert isinstance(value, ast.Dict)
                    names = [k.value for k in value.keys if isinstance(k, ast.Constant)]
                    # `**_experimental_task_schema()` (0.8-0.10): the keys of the dict that function returns
                    for k, spread in zip(value.keys, value.values, strict=True):
                        if k is None and isinstance(spread, ast.Call) and isinstance(spread.func, ast.Name):
                            given = _returned_dict(tree, spread.func.id)
                            assert given is not None, spread.func.id
                            names += [g.value for g in given.keys if isinstance(g, ast.Constant)]
                    return sorted(str(n) for n in names), node.lineno
    raise SystemExit("get_task_schema not found")


def former_keys(newest: list[str], older: list[str]) -> dict[str, dict[str, object]]:
    """The task keys older SkyPilot wheels' schemas took that the newest refuses: key -> the releases that
    took it and where (each wheel's get_task_schema)."""
    out: dict[str, dict[str, object]] = {}
    for path in older:
        version = re.search(r"skypilot-([^-]+)-", Path(path).name)
        release = version.group(1) if version else "?"
        keys, line = task_keys(_read(zipfile.ZipFile(path), "sky/utils/schemas.py"))
        for key in sorted(set(keys) - set(newest)):
            entry = out.setdefault(key, {"releases": [], "at": {}})
            entry["releases"].append(release)  # type: ignore[attr-defined]
            entry["at"][release] = f"sky/utils/schemas.py:{line} (get_task_schema)"  # type: ignore[index]
    return out


def constants(text: str) -> dict[str, str]:
    """The string constants of constants.py, f-strings over earlier constants evaluated."""
    values: dict[str, str] = {}
    for node in ast.parse(text).body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        name = node.targets[0].id
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            values[name] = value.value
        elif isinstance(value, ast.JoinedStr):
            parts = []
            for part in value.values:
                if isinstance(part, ast.Constant):
                    parts.append(str(part.value))
                elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                    parts.append(values.get(part.value.id, "?"))
            values[name] = "".join(parts)
    return values


def assigned(text: str, target: str, names: dict[str, str], path: str) -> dict[str, str]:
    """``TARGET['{constants.X}']``, ``TARGET[constants.X]`` and ``TARGET['NAME']`` assignments: variable ->
    FILE:LINE of its first assignment."""
    out: dict[str, str] = {}
    pattern = re.compile(rf"{target}\[(?:'\{{constants\.(\w+)\}}'|constants\.(\w+)|'(\w+)')\]\s*=")
    for m in pattern.finditer(text):
        var = names.get(m.group(1) or m.group(2) or "", m.group(3) or "")
        if var and var not in out:
            out[var] = f"{path}:{text[: m.start()].count(chr(10)) + 1}"
    return out


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        table = json.loads(OUT.read_text())
        ok = table["run"] and table["setup"] and table["task_keys"] and table["source"]
        print("well formed" if ok else "malformed")
        return 0 if ok else 1
    older = sys.argv[sys.argv.index("--older") + 1 :] if "--older" in sys.argv else []
    wheel = zipfile.ZipFile(sys.argv[1])
    version = re.search(r"skypilot-([^-]+)-", Path(sys.argv[1]).name)
    schemas = _read(wheel, "sky/utils/schemas.py")
    keys, keys_line = task_keys(schemas)
    consts_text = _read(wheel, "sky/skylet/constants.py")
    names = constants(consts_text)
    codegen = _read(wheel, "sky/backends/task_codegen.py")
    backend = _read(wheel, "sky/backends/cloud_vm_ray_backend.py")
    log_lib = _read(wheel, "sky/skylet/log_lib.py")
    run = assigned(codegen, "sky_env_vars_dict", names, "sky/backends/task_codegen.py")
    setup_body = backend[backend.index("def _setup(") :]
    setup_body = setup_body[: setup_body.index("\n    def ", 10)]
    offset = backend[: backend.index("def _setup(")].count("\n")
    setup = {
        var: f"sky/backends/cloud_vm_ray_backend.py:{int(where.rsplit(':', 1)[1]) + offset}"
        for var, where in assigned(setup_body, "setup_envs", names, "x:0").items()
    }
    setup.update(
        {
            k: v
            for k, v in assigned(codegen, "setup_envs", names, "sky/backends/task_codegen.py").items()
            if k not in setup
        }
    )
    task_text = _read(wheel, "sky/task.py")
    table = {
        "source": f"skypilot {version.group(1) if version else '?'} wheel, read by "
        "scripts/gen_skypilot_task.py",
        "task_keys": keys,
        "task_keys_at": f"sky/utils/schemas.py:{keys_line} (get_task_schema)",
        "run": dict(sorted(run.items())),
        "setup": dict(sorted(setup.items())),
        "workdir": names.get("SKY_REMOTE_WORKDIR", "~/sky_workdir"),
        "exports_at": f"sky/skylet/log_lib.py:{_line_of(log_lib, 'def make_task_bash_script')} "
        "(make_task_bash_script)",
        "null_env_at": f"sky/task.py:{_line_of(task_text, 'is None. Please set a ')}",
        # keys older releases took (`experimental:`, 0.8.1-0.10.0): refused by this one only
        "former_task_keys": former_keys(keys, older),
    }
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {OUT}: {len(keys)} task keys, run {sorted(run)}, setup {sorted(setup)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
