#!/usr/bin/env python3
"""The instructions one Python function costs inside an argtrace command, counted by callgrind (issue 18).

Callgrind counts C functions only: a Python function's cost is spread over the interpreter's loop. Here the
function is wrapped so that it runs inside ``operator.call`` (CPython 3.11+), a C function nothing else in
argtrace calls, and callgrind's inclusive count of ``_operator_call`` is the function's own cost with
everything it calls (calls from a check and from its fix re-checks together)::

    bench/instructions_of.py dataclasses:_process_class -- check --format json --no-resolve EXAMPLE
    bench/instructions_of.py 'argtrace.check:run_check@1' -- check ...    # @N: the first N calls not counted
    bench/instructions_of.py 'argtrace.frameworks.release_index:ReleaseIndex.releases_knowing_env' -- ...
    bench/instructions_of.py --within argtrace.fixes.verify:Rechecker.recheck argtrace.check:late_layers -- …

``--within`` counts only the calls made while another function runs (there: the fix re-checks alone).

The command runs twice (the first warms the caches and ``__pycache__``) with this interpreter and ``-S``;
``PYTHONPATH`` and the cache variables are the caller's (bench/check_startup.py's callgrind notes apply).
The wrapper itself adds a few hundred instructions per call.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUNNER = """
import importlib, operator, sys
target, skip, within = sys.argv[1], int(sys.argv[2]), sys.argv[3]
del sys.argv[1:4]
from argtrace import dataclass_code
dataclass_code._import_dataclasses()  # dataclasses without inspect, as cli.main imports it
def owner_of(target):
    module_name, _, attribute = target.partition(":")
    owner = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name
inside = [0 if within else 1]
if within:
    outer_owner, outer_name = owner_of(within)
    outer = getattr(outer_owner, outer_name)
    def around(*args, **kwargs):
        inside[0] += 1
        try:
            return outer(*args, **kwargs)
        finally:
            inside[0] -= 1
    setattr(outer_owner, outer_name, around)
owner, name = owner_of(target)
real = getattr(owner, name)
seen = [0]
def wrapped(*args, **kwargs):
    if not inside[0]:
        return real(*args, **kwargs)
    seen[0] += 1
    if seen[0] <= skip:
        return real(*args, **kwargs)
    return operator.call(real, *args, **kwargs)
setattr(owner, name, wrapped)
from argtrace.cli import main
sys.argv[0] = "argtrace"
sys.exit(main())
"""


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", help="module:function or module:Class.method, optionally @N")
    parser.add_argument(
        "--within",
        metavar="TARGET",
        default="",
        help="count only the calls made while this module:function runs (e.g. "
        "argtrace.fixes.verify:Rechecker.recheck: the fix re-checks alone)",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- and the argtrace command's words")
    args = parser.parse_args()
    words = args.command[1:] if args.command[:1] == ["--"] else args.command
    target, _, skip = args.target.partition("@")
    valgrind, annotate = shutil.which("valgrind"), shutil.which("callgrind_annotate")
    if valgrind is None or annotate is None:
        raise SystemExit("needs valgrind and callgrind_annotate")
    cmd = [sys.executable, "-S", "-c", RUNNER, target, skip or "0", args.within, *words]
    subprocess.run(cmd, capture_output=True)  # warms the caches
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", *cmd], capture_output=True
        )
        text = subprocess.run(
            [annotate, "--threshold=100", "--inclusive=yes", out], capture_output=True, text=True
        ).stdout
    total = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text)
    inside = re.search(r"([\d,]+) \([^)]*\)\s+\S*_operator\.c:_operator_call", text)
    print(f"command: {total.group(1) if total else '?'} instructions")
    print(f"{args.target}: {inside.group(1) if inside else '0 (never called?)'} instructions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
