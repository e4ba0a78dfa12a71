#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_kv_connectors.json: the KV connectors each vLLM release
registers for ``--kv-transfer-config``'s ``kv_connector``, read from the vLLM wheels by AST (0.6.x: the
literal ``supported_kv_connector`` list its ``create_connector`` checks).

vLLM's ``KVConnectorFactory`` (``vllm/distributed/kv_transfer/kv_connector/factory.py``) holds a registry
filled by module-level ``KVConnectorFactory.register_connector(NAME, MODULE, CLASS)`` calls; a name not in
it stops the engine ("Unsupported connector type", unless ``kv_connector_module_path`` names a module).
A connector whose module is under ``kv_connector.v1`` is a V1 connector; the others are the V0 engine's
(``create_connector_v1`` asserts ``issubclass(connector_cls, KVConnectorBase_V1)``).

  pip download vllm==0.9.2 ... --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_kv_connectors.py /tmp/vw/vllm-*.whl
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/vllm_kv_connectors.json"
FACTORY = "vllm/distributed/kv_transfer/kv_connector/factory.py"


def registered(wheel: Path) -> dict[str, str]:
    """NAME -> "v1" or "v0" for every register_connector call of the wheel's factory."""
    with zipfile.ZipFile(wheel) as z:
        if FACTORY not in z.namelist():
            return {}
        tree = ast.parse(z.read(FACTORY).decode())
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
    return dict(sorted(out.items()))


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.replace(".post", ".").split(".") if p.isdigit())


def main() -> int:
    releases = {Path(w).name.split("-")[1]: registered(Path(w)) for w in sys.argv[1:]}
    data = {
        "generated_by": "scripts/gen_kv_connectors.py",
        "source": FACTORY,
        "releases": {v: releases[v] for v in sorted(releases, key=_key)},
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    for v in sorted(releases, key=_key):
        print(v, len(releases[v]), " ".join(f"{n}({k})" for n, k in releases[v].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
