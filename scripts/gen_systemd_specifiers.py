#!/usr/bin/env python3
"""Write ``src/argtrace/data/systemd_specifiers.json``: the ``%`` specifiers the installed systemd knows,
measured, not typed.

For every letter a-z and A-Z the script writes a service unit whose ``ExecStart=`` holds ``%LETTER`` and
asks the real systemd for the command line it builds (``SYSTEMD_LOG_LEVEL=debug systemd-analyze verify``
prints the loaded unit, ``Command Line: ...``); a letter systemd refuses ("Failed to resolve unit
specifiers ... Invalid slot") is not a specifier. Two unit names (``argtrace-probe@inst-1.service`` and
``other.service``) tell the letters made from the unit's name from the others. Of the rest, systemd.unit(5)
("Specifiers") gives the system manager's fixed directories (``FIXED``) and the letters of the configured
user (``USER``, measured here with no ``User=``, i.e. root); everything else (host name, machine and boot
ID, kernel release, architecture, OS release fields) depends on the host and is not resolved by argtrace.

    python3 scripts/gen_systemd_specifiers.py           # rewrite the JSON (needs systemd-analyze)
    python3 scripts/gen_systemd_specifiers.py --check   # compare with the installed systemd
"""

from __future__ import annotations

import json
import os
import shlex
import string
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "argtrace" / "data" / "systemd_specifiers.json"
# systemd.unit(5), "Specifiers": the system manager's directories (%t runtime, %S state, %C cache, %L logs,
# %E configuration, %T and %V temporary)
FIXED = "tSCLETV"
# systemd.unit(5): "the configured user of the unit, or (if none is set) the user running the service
# manager" (%u %U), its group (%g %G), home (%h) and shell (%s)
USER = "uUgGhs"
NAMES = ("argtrace-probe@inst-1.service", "other.service")


def command_line(directory: Path, name: str, letter: str) -> str | None:
    unit = directory / name
    unit.write_text(f"[Service]\nExecStart=/bin/true %{letter}\n")
    env = {**os.environ, "SYSTEMD_LOG_LEVEL": "debug"}
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, env=env, timeout=60
    )
    for line in done.stdout.splitlines():
        if "Command Line:" in line:
            words = shlex.split(line.split("Command Line:", 1)[1])
            return words[1] if len(words) > 1 else ""
    return None


def measure() -> dict[str, object]:
    version = subprocess.run(["systemctl", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    letters: dict[str, str] = {}
    fixed: dict[str, str] = {}
    root: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for letter in string.ascii_letters:
            first = command_line(directory, NAMES[0], letter)
            if first is None:
                continue
            second = command_line(directory, NAMES[1], letter)
            if first != second:
                letters[letter] = "unit"
            elif letter in FIXED:
                letters[letter] = "fixed"
                fixed[letter] = first
            elif letter in USER:
                letters[letter] = "user"
                root[letter] = first
            else:
                letters[letter] = "host"
    return {
        "source": f"measured with systemd-analyze verify ({version}) by scripts/gen_systemd_specifiers.py",
        "letters": letters,
        "fixed": fixed,
        "root": root,
    }


def main() -> int:
    table = measure()
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv[1:]:
        old = json.loads(OUT.read_text())
        same = {k: v for k, v in old.items() if k != "source"} == {
            k: v for k, v in table.items() if k != "source"
        }
        print("up to date" if same else "differs from the installed systemd")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}: {len(table['letters'])} specifiers")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
