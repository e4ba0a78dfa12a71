"""What the JSON generators share: read a release's modules from its wheel, write the table, or with
``--check`` compare it with the bundled one."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_or_check(out: Path, data: Any, generator: str, *, check: bool) -> int:
    """Write ``data`` as the generators' JSON (1-space indent, sorted keys) to ``out``; with ``check``, exit
    status 1 and a message naming the generator when the bundled file differs from what it would write."""
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if check:
        same = out.is_file() and out.read_text() == text
        print("up to date" if same else f"{out} differs: run {generator}", file=sys.stderr)
        return 0 if same else 1
    out.write_text(text)
    return 0


def wheel_modules(
    source: Path, wanted: Callable[[str], bool], package: str
) -> tuple[str, str, dict[str, str]]:
    """(release, wheel name, module path -> text) of ``package``'s wheel, or of a tree extracted from one (its
    ``WHEEL`` file holding the wheel's name), for each module path (``vllm/config/parallel.py``) ``wanted``
    keeps."""
    if source.is_dir():
        wheel = (source / "WHEEL").read_text().strip()
        paths = sorted(p.relative_to(source).as_posix() for p in source.rglob("*.py"))
        texts = {m: (source / m).read_text() for m in paths if wanted(m)}
    else:
        wheel = source.name
        with zipfile.ZipFile(source) as archive:
            texts = {m: archive.read(m).decode() for m in archive.namelist() if wanted(m)}
    found = re.match(rf"{package}-(\d+(?:\.\d+)+(?:\.post\d+)?)-", wheel)
    if found is None:
        raise SystemExit(f"{source}: no {package} release in the wheel name {wheel!r}")
    return found.group(1), wheel, texts
