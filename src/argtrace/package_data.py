"""Where argtrace's bundled data files are: on disk, beside the modules that read them.

``importlib.resources.files`` finds the same files, but its first call imports the package readers and
``zipfile`` (about 2 ms at every start-up, issue 18) to support packages imported from zip archives,
which argtrace is not: its own modules already find their data beside ``__file__``.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent  # .../argtrace


def package_file(relative: str) -> Path:
    """The bundled file at ``relative`` (``data/x.json``, ``frameworks/data/y.json``) in the package."""
    return PACKAGE_DIR / relative
