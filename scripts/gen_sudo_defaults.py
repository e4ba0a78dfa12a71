#!/usr/bin/env python3
"""Write src/argtrace/data/sudo_defaults.json from the machine's real sudo (run as root).

``sudo -V`` run by root prints, besides the version, the policy's effective defaults: whether ``env_reset``
is on, ``secure_path`` ("Value to override user's $PATH with"), and the ``env_check``, ``env_delete`` and
``env_keep`` lists ("Environment variables to check for safety / to remove / to preserve"). Those come from
sudo's compiled-in defaults plus the ``Defaults`` lines of /etc/sudoers, so this records what this
distribution's package ships (argtrace's CI: Debian 12, ``apt-get install sudo``), never a hand-typed list.
The ``Defaults`` lines of /etc/sudoers are kept beside them for the record.

Usage: ``sudo python3 scripts/gen_sudo_defaults.py [OUT]`` (or as root without sudo).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "argtrace" / "data" / "sudo_defaults.json"
_LISTS = {
    "Environment variables to check for safety:": "env_check",
    "Environment variables to remove:": "env_delete",
    "Environment variables to preserve:": "env_keep",
}


def parse_sudo_v(text: str) -> dict[str, object]:
    """The defaults ``sudo -V`` (as root) prints, as a dict (see the module docstring)."""
    out: dict[str, object] = {"env_reset": False, "secure_path": None}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("\t") and current is not None:
            current.append(line.strip())
            continue
        current = None
        m = re.match(r"Sudo version (\S+)", line)
        if m:
            out["sudo_version"] = m.group(1)
        elif line.startswith("Value to override user's $PATH with: "):
            out["secure_path"] = line.split(": ", 1)[1]
        elif line == "Reset the environment to a default set of variables":
            out["env_reset"] = True
        elif line == "Set the LOGNAME and USER environment variables":
            out["set_logname"] = True
        elif line in _LISTS:
            current = []
            out[_LISTS[line]] = current
    return out


def package_version() -> str | None:
    try:
        return subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "sudo"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    if os.geteuid() != 0:
        print("run as root: sudo -V prints the policy's defaults only to root", file=sys.stderr)
        return 2
    text = subprocess.run(["sudo", "-V"], capture_output=True, text=True, check=True).stdout
    data = parse_sudo_v(text)
    os_release = Path("/etc/os-release").read_text() if Path("/etc/os-release").exists() else ""
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', os_release, re.M)
    sudoers = [
        line.strip() for line in Path("/etc/sudoers").read_text().splitlines() if line.startswith("Defaults")
    ]
    record = {
        "source": "`sudo -V` run as root (the policy's effective defaults) and /etc/sudoers' Defaults lines",
        "generated_by": "scripts/gen_sudo_defaults.py",
        "system": m.group(1) if m else None,
        "package": f"sudo {package_version()}",
        "sudoers_defaults": sudoers,
        **data,
    }
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
