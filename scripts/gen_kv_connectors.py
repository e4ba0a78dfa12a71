#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_kv_connectors.json: the KV connectors each vLLM release
registers for ``--kv-transfer-config``'s ``kv_connector``, read from the vLLM wheels by AST (0.6.x: the
literal ``supported_kv_connector`` list its ``create_connector`` checks).

vLLM's ``KVConnectorFactory`` (``vllm/distributed/kv_transfer/kv_connector/factory.py``) holds a registry
filled by module-level ``KVConnectorFactory.register_connector(NAME, MODULE, CLASS)`` calls; a name not in
it stops the engine ("Unsupported connector type", unless ``kv_connector_module_path`` names a module).
A connector whose module is under ``kv_connector.v1`` is a V1 connector; the others are the V0 engine's
(``create_connector_v1`` asserts ``issubclass(connector_cls, KVConnectorBase_V1)``). For each connector it
also records the ``kv_connector_extra_config`` keys its code requires (a subscript, or a raise saying
"kv_connector_extra_config.KEY is required").

  pip download vllm==0.9.2 ... --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_kv_connectors.py /tmp/vw/vllm-*.whl
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/vllm_kv_connectors.json"
FACTORY = "vllm/distributed/kv_transfer/kv_connector/factory.py"


_REQUIRED = re.compile(r"kv_connector_extra_config\.(\w+) is required")


def _required_keys(z: zipfile.ZipFile, module: str) -> list[str]:
    """kv_connector_extra_config keys the connector's code cannot do without: ``...extra_config["KEY"]``
    (a KeyError) or a raise whose text says "kv_connector_extra_config.KEY is required". Read from the
    connector's module, or its package when it has one of its own (``v1/p2p/``)."""
    path = module.replace(".", "/")
    package = path.rsplit("/", 1)[0]
    files = (
        [n for n in z.namelist() if n.startswith(package + "/") and n.endswith(".py")]
        if not package.endswith("kv_connector/v1") and not package.endswith("kv_connector")
        else [path + ".py"]
    )
    keys: set[str] = set()
    for name in files:
        if name not in z.namelist():
            continue
        for node in ast.walk(ast.parse(z.read(name).decode())):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "kv_connector_extra_config"
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                keys.add(node.slice.value)
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                keys.update(_REQUIRED.findall(node.value))
    return sorted(keys)


def registered(wheel: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(NAME -> "v1" or "v0" for every register_connector call of the wheel's factory, NAME -> the
    kv_connector_extra_config keys it requires)."""
    with zipfile.ZipFile(wheel) as z:
        if FACTORY not in z.namelist():
            return {}, {}
        tree = ast.parse(z.read(FACTORY).decode())
        modules: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "register_connector":
                args = [
                    a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                if len(args) >= 2:
                    modules[args[0]] = args[1]
        required = {name: keys for name, m in modules.items() if (keys := _required_keys(z, m))}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        # 0.6.x: create_connector checks a literal list, ``supported_kv_connector = ["PyNcclConnector", ...]``
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "supported_kv_connector" for t in node.targets)
            and isinstance(node.value, ast.List)
        ):
            for item in node.value.elts:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    out[item.value] = "v0"
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "register_connector":
            args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if len(args) >= 2:
                out[args[0]] = "v1" if ".kv_connector.v1." in args[1] else "v0"
    return dict(sorted(out.items())), dict(sorted(required.items()))


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.replace(".post", ".").split(".") if p.isdigit())


def main() -> int:
    read = {Path(w).name.split("-")[1]: registered(Path(w)) for w in sys.argv[1:]}
    releases = {v: names for v, (names, _) in read.items()}
    data = {
        "generated_by": "scripts/gen_kv_connectors.py",
        "source": FACTORY,
        "releases": {v: releases[v] for v in sorted(releases, key=_key)},
        # connector -> the kv_connector_extra_config keys its code requires, per release
        "required_extra": {v: read[v][1] for v in sorted(read, key=_key) if read[v][1]},
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    for v in sorted(releases, key=_key):
        print(v, len(releases[v]), " ".join(f"{n}({k})" for n, k in releases[v].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
