"""Where argtrace's bundled data files are: on disk, beside the modules that read them.

``importlib.resources.files`` finds the same files, but its first call imports the package readers and
``zipfile`` (about 2 ms at every start-up, issue 18) to support packages imported from zip archives,
which argtrace is not: its own modules already find their data beside ``__file__``.
"""

from __future__ import annotations

import functools
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent  # .../argtrace


def package_file(relative: str) -> Path:
    """The bundled file at ``relative`` (``data/x.json``, ``frameworks/data/y.json``) in the package."""
    return PACKAGE_DIR / relative


def bundled_json(relative: str) -> Any:
    """The parsed JSON of the bundled file at ``relative``: argtrace's own data, written by its generator
    scripts, so plain ``json.loads`` (no depth bound: tests/security/test_json_depth.py)."""
    import json

    return json.loads(package_file(relative).read_text(encoding="utf-8"))


@functools.cache
def releases_table(relative: str) -> dict[str, Any]:
    """The ``releases`` mapping of a bundled per-release table (``{"releases": {RELEASE: facts}}``, what a
    ``scripts/gen_*.py`` read from each release's wheel), read once per process."""
    return dict(bundled_json(relative).get("releases") or {})


def release_facts(relative: str, release: str) -> dict[str, Any] | None:
    """What the generator of the table at ``relative`` read from ``release``'s wheel, or None (not read)."""
    facts = releases_table(relative).get(release)
    return facts if isinstance(facts, dict) else None
