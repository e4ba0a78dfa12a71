"""Where argtrace keeps what it caches for the user: resolver environments, resolutions, parsed data and
compiled code. Imports nothing but ``os`` and ``sys``: the CLI asks for the data directory before any of
its own modules (and their dataclasses) are imported (``dataclass_code.py``)."""

from __future__ import annotations

import os
import sys


def user_cache_dir() -> str:
    """``platformdirs.user_cache_dir("argtrace")``. Every check needs it (``argtrace resolver add`` puts
    the schemas of releases not bundled under it, and they count among the releases), but importing
    platformdirs was ~1.4% of a short check's instructions (issue 18). On Linux with no
    ``XDG_CACHE_HOME`` and an absolute ``HOME`` every platformdirs release (3.x to 4.x: ``_xdg.py``
    ``xdg_dir`` falls back to ``expand_user("~/.cache")``, which is ``os.path.expanduser`` for an absolute
    ``HOME``; no Android variables) answers ``~/.cache/argtrace``, so that case is answered here; any
    other asks platformdirs (``tests/test_environments.py`` compares the two)."""
    env = os.environ
    home = env.get("HOME", "")
    if (
        sys.platform == "linux"
        and not hasattr(sys, "getandroidapilevel")
        and not {"XDG_CACHE_HOME", "ANDROID_DATA", "ANDROID_ROOT"} & env.keys()
        and home.startswith("/")
    ):
        return os.path.join(os.path.expanduser("~/.cache"), "argtrace")
    import platformdirs

    return platformdirs.user_cache_dir("argtrace")


def data_cache_dir() -> str:
    """Parsed copies of argtrace's own data and the dataclasses' compiled methods (``resolver/data_cache.py``,
    ``dataclass_code.py``): ``$ARGTRACE_DATA_CACHE`` or ``<user cache dir>/data``."""
    override = os.environ.get("ARGTRACE_DATA_CACHE")
    if override:
        return os.path.expanduser(override)
    return os.path.join(user_cache_dir(), "data")


def data_cache_enabled() -> bool:
    """``ARGTRACE_NO_DATA_CACHE=1`` rebuilds and recompiles every time."""
    return os.environ.get("ARGTRACE_NO_DATA_CACHE", "") in ("", "0")
