#!/usr/bin/env python3
"""Record, per SGLang release, the variable prefixes the release renames at import into
``src/argtrace/frameworks/data/env_prefix_aliases.json``.

SGLang 0.5.x copies every ``SGL_*`` variable of the process to ``SGLANG_*`` when ``sglang.srt.environ`` is
imported (``_convert_SGL_to_SGLANG``, ``sglang/srt/environ.py:389`` in 0.5.6.post2: ``for key, value in
os.environ.items(): if key.startswith("SGL_"): new_key = key.replace("SGL_", "SGLANG_", 1) ...
os.environ[new_key] = value``), warning that the old name is deprecated. A release that reads
``SGLANG_ENABLE_JIT_DEEPGEMM`` therefore honours ``SGL_ENABLE_JIT_DEEPGEMM=1``: the process layer must not
call it ignored (sglang#14365's launch, batch sgl18). The bundled schemas list the names a release reads
and the one-to-one renames of ``_print_deprecated_env``; this loop renames a whole prefix, which no name
list holds. The same file records each release's one-to-one renames (``_print_deprecated_env``), each
argument placed by the function's parameter names: their order flipped in 0.5.11 (``(old_name, new_name)``),
which the schemas' ``deprecated``/``replacement`` read the other way round for 0.5.11-0.5.17 (PR002 called
the new name deprecated).

Every SGLang release of ``gen_schemas.RELEASES`` is read from its wheel (``pip download --no-deps``,
unpacked by ``schema_gen.fetch_unpacked``; ``--wheels DIR`` reuses wheels already downloaded there) by AST
(``argtrace.resolver.ast_index.env_prefix_aliases``), without importing it.

Run: ``python3 scripts/gen_env_prefix_aliases.py [--wheels DIR]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from argtrace.resolver import schema_gen  # noqa: E402
from argtrace.resolver.ast_index import env_prefix_aliases, env_renames  # noqa: E402
from gen_schemas import RELEASES  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/env_prefix_aliases.json"


def unpacked(version: str, root: Path, wheels: Path | None) -> Path:
    """The release's unpacked wheel under ``root``: from ``wheels`` when it holds the wheel, else fetched."""
    dest = root / f"sglang-{version}"
    found = sorted(wheels.glob(f"sglang-{version}-*.whl")) if wheels else []
    if found and not (dest / schema_gen.WHEEL_NOTE).is_file():
        schema_gen.unpack_wheel(found[0], dest)
        return dest
    return schema_gen.fetch_unpacked("sglang", version, root, lambda m: print(m, file=sys.stderr))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, default=None, help="a directory of downloaded sglang wheels")
    ap.add_argument("--unpacked", type=Path, default=Path(tempfile.gettempdir()) / "argtrace-wheels")
    args = ap.parse_args()
    args.unpacked.mkdir(parents=True, exist_ok=True)
    releases: dict[str, list[dict[str, Any]]] = {}
    renames: dict[str, dict[str, str] | None] = {}
    for version in RELEASES["sglang"]:
        site = unpacked(version, args.unpacked, args.wheels)
        releases[version] = env_prefix_aliases(site / "sglang", site)
        renames[version] = env_renames(site / "sglang" / "srt" / "environ.py")
    data = {
        "format": 1,
        "generated_by": "scripts/gen_env_prefix_aliases.py",
        "source": "the PyPI wheel of each release, read by AST (resolver/ast_index.py env_prefix_aliases, "
        "env_renames)",
        "sglang": releases,
        "renames": {"sglang": renames},
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    renaming = sum(bool(v) for v in releases.values())
    print(f"wrote {OUT.relative_to(ROOT)}: {renaming} releases rename a prefix")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
