#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_router.json: the flags of the ``vllm-router`` console script
of PyPI's ``vllm-router`` package (vllm-project/router, a Rust router descended from sgl-router), per
release, from its wheels and sdists.

Its ``vllm_router/launch_router.py`` (``vllm-router = vllm_router.launch_router:main`` in every release's
entry_points.txt) builds ``argparse.ArgumentParser(...)`` (``-h`` and prefix matching included), calls
``RouterArgs.add_cli_args(parser, use_router_prefix=False)`` and ``parse_args``. This script runs that
``add_cli_args`` (``vllm_router/router_args.py`` extracted from the archive: it imports only the standard
library) on an empty parser in a subprocess and records each option's strings, action, nargs and choices,
in the shape ``scripts/gen_router_schema.py`` gives ``smg_launch``.

PyPI's ``vllm-router`` is not production-stack's router: production-stack's pyproject.toml also names its
distribution ``vllm-router`` with a console script ``vllm-router = vllm_router.app:main``, but it publishes
no release on PyPI (its router ships in container images), so its parser is not read here.

  pip download --no-deps vllm-router==0.1.9 vllm-router==0.1.10 ... -d /tmp/wh
  python scripts/gen_vllm_router_schema.py /tmp/wh/vllm_router-*
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_router_schema import _DUMP, _per_release, _version_key

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/vllm_router.json"


def _read(archive: Path, name: str) -> bytes:
    """``vllm_router/<name>`` of a wheel, or ``py_src/vllm_router/<name>`` of an sdist."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            return z.read(f"vllm_router/{name}")
    with tarfile.open(archive) as t:
        member = next(m for m in t.getmembers() if m.name.endswith(f"py_src/vllm_router/{name}"))
        f = t.extractfile(member)
        assert f is not None
        return f.read()


def _entry_point(archive: Path) -> str:
    """The ``vllm-router`` console script's target in the archive's entry_points.txt."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            text = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")))
    else:
        with tarfile.open(archive) as t:
            member = next(m for m in t.getmembers() if m.name.endswith("egg-info/entry_points.txt"))
            f = t.extractfile(member)
            assert f is not None
            text = f.read()
    for line in text.decode().splitlines():
        if line.replace(" ", "").startswith("vllm-router="):
            return line.split("=", 1)[1].strip()
    raise SystemExit(f"{archive.name}: no vllm-router console script")


def release_options(archive: Path) -> tuple[str, list[dict[str, object]]]:
    version = archive.name.split("-")[1].removesuffix(".tar.gz")
    target = _entry_point(archive)
    if target != "vllm_router.launch_router:main":
        raise SystemExit(f"{archive.name}: vllm-router runs {target}, not launch_router:main")
    with tempfile.TemporaryDirectory() as tmp:
        pkg = Path(tmp) / "vllm_router"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "router_args.py").write_bytes(_read(archive, "router_args.py"))
        dumped = subprocess.run(
            [sys.executable, "-c", _DUMP, tmp, "vllm_router.router_args", "router"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    return version, [o for o in json.loads(dumped.stdout) if o["flags"]]


def main() -> int:
    read = sorted((release_options(Path(a)) for a in sys.argv[1:]), key=lambda r: _version_key(r[0]))
    data = {
        "package": f"vllm-router {read[-1][0]}",
        "generated_by": "scripts/gen_vllm_router_schema.py",
        "console_script": "vllm_router.launch_router:main",
        **_per_release(read),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(data['flags'])} flags of vllm-router {', '.join(v for v, _ in read)}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
