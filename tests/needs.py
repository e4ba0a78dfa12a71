"""What a rule example or test needs from the machine, and whether it is here."""

from __future__ import annotations

import shutil
from collections.abc import Sequence


def unmet(needs: Sequence[str]) -> list[str]:
    from tests.live.example_support import handles, unmet_live_needs

    missing = unmet_live_needs([n for n in needs if handles(n)])
    for need in needs:
        kind, _, arg = need.partition(":")
        if handles(need):
            continue
        if kind == "resolver":
            if not _resolver_available(arg):
                missing.append(need)
        elif kind == "binary":
            if shutil.which(arg) is None:
                missing.append(need)
        elif kind in ("sshd", "sshd-fixture"):
            if shutil.which("sshd") is None and not _exists("/usr/sbin/sshd"):
                missing.append(need)
        else:
            missing.append(need)
    return missing


def _exists(path: str) -> bool:
    import os

    return os.path.exists(path)


def _resolver_available(spec: str) -> bool:
    try:
        from argtrace.resolver import environments
    except ImportError:
        return False
    framework, _, version = spec.partition("==")
    try:
        return environments.find_environment(framework, version or None) is not None
    except Exception:
        return False
