"""``datetime``'s classes read from the C module ``_datetime``, without running ``datetime.py`` (issue 18).

CPython 3.10-3.12's ``datetime.py`` defines every class in Python first and then replaces them with
``_datetime``'s (``from _datetime import *`` at its end): 2.9 M instructions of each ``log`` run for
classes it never uses. ``datetime.datetime`` *is* ``_datetime.datetime`` there (and from 3.13, where
``datetime.py`` imports ``_datetime`` first), so the values and their type are the same; an interpreter
without the C module (PyPy) gets ``datetime``'s own classes.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime, timedelta, timezone
else:
    try:
        from _datetime import datetime, timedelta, timezone
    except ImportError:  # no C accelerator: the pure-Python module
        from datetime import datetime, timedelta, timezone

__all__ = ["datetime", "timedelta", "timezone"]
