#!/usr/bin/env python3
"""Generate src/argtrace/data/kubectl_exec_options.json: the options of ``kubectl exec`` and kubectl's global
options, read from the installed kubectl's own ``kubectl exec --help`` and ``kubectl options`` (its version
kept in ``source``), each with whether it takes a value: an option whose default is ``false``/``true`` is a
switch (pflag's bool flags take no separate value), any other takes the next word unless written
``--name=value`` (or ``-xVALUE``). The transport layer (layers/transport/kube_exec.py) reads the pod's name
past them; the command is what follows ``--``. ``--check`` compares the file with what kubectl gives now.

  python scripts/gen_kubectl_exec_options.py [--kubectl PATH] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/argtrace/data/kubectl_exec_options.json"

# `    -c, --container='':` / `    --pod-running-timeout=1m0s:` (the help's option lines)
_OPTION = re.compile(r"^\s+(?:(-[A-Za-z]), )?(--[A-Za-z0-9-]+)=(.*):\s*$")


def options(text: str) -> list[tuple[str | None, str, bool]]:
    """(short, long, takes a value) of each option line of a kubectl help text."""
    found = []
    for line in text.splitlines():
        m = _OPTION.match(line)
        if m:
            found.append((m.group(1), m.group(2), m.group(3) not in ("false", "true")))
    return found


def generate(kubectl: str) -> dict[str, object]:
    def run(*args: str) -> str:
        return subprocess.run([kubectl, *args], capture_output=True, text=True, check=True).stdout

    m = re.search(r"v\d+\.\d+\.\d+", run("version", "--client"))
    version = f"kubectl {m.group(0) if m else 'of unknown version'}"
    found = options(run("exec", "--help")) + options(run("options"))
    switches = sorted({n for s, long, value in found if not value for n in (s, long) if n})
    valued = sorted({n for s, long, value in found if value for n in (s, long) if n})
    return {
        "source": f"kubectl exec --help, kubectl options ({version})",
        "switches": switches,
        "valued": valued,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubectl", default="kubectl")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    data = generate(args.kubectl)
    text = json.dumps(data, indent=1) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} differs from what {args.kubectl} gives: run {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
