#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_mamba_track.json: where each SGLang release builds the Mamba
track indices of a speculative verify batch, and whether it guards a request whose index is still None,
read from the release's wheel by AST (commands/why_mamba_track.py uses it).

``set_mamba_track_indices_from_reqs`` (srt/managers/schedule_batch.py, 0.5.13.post1 on) builds
``torch.tensor([req.mamba_next_track_idx for req in batch.reqs], ...)`` for the verify step of EAGLE/NEXTN/MTP
drafts on a hybrid (Mamba) model with the extra_buffer strategies. A request whose ping-pong buffer was not
allocated yet (the spec v2 verify path, extra_buffer_lazy) or that finished during the verify step still
carries None there, and the build raises "TypeError: 'NoneType' object cannot be interpreted as an
integer" (sglang#27325, #28484, #29516, #34786). sglang PR#27998 (first in 0.5.16) reads None as 0. Recorded
per release: the function's line and whether an ``is not None``/``is None`` test on ``mamba_next_track_idx``
is in it. A release without the function is recorded empty.

  pip download sglang==0.5.14 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_mamba_track.py [--check] /tmp/sw/sglang-*.whl
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/sglang_mamba_track.json"
GENERATOR = "scripts/gen_sglang_mamba_track.py"
MODULE = "sglang/srt/managers/schedule_batch.py"
FUNCTION = "set_mamba_track_indices_from_reqs"


def _guards_none(function: ast.FunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            text = ast.unparse(node)
            if "mamba_next_track_idx" in text and "None" in text:
                return True
    return False


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """Where the release defines the function and whether it guards a None index; empty without it."""
    text = texts.get(MODULE)
    if text is None:
        return {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == FUNCTION:
            return {"at": f"srt/managers/schedule_batch.py:{node.lineno}", "guards_none": _guards_none(node)}
    return {}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), {MODULE}.__contains__, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": f"sglang wheels: {MODULE}, {FUNCTION} and its None test on mamba_next_track_idx",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
