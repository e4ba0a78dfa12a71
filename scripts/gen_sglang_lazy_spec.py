#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_lazy_spec.json: where an SGLang release refuses the
``extra_buffer_lazy`` Mamba strategy with speculative decoding, and whether that check can see a draft
length the launch leaves to the defaults, read from the release's wheel by AST (layers/lazy_spec.py uses
it, RS086).

SGLang 0.5.13.post1-0.5.16 assert, in the Mamba radix-cache validation (``_validate_mamba_extra_buffer``,
or ``_handle_mamba_radix_cache`` in 0.5.13.post1, srt/server_args.py), that ``extra_buffer_lazy`` is not
used with speculative decoding ("extra_buffer_lazy unsupported with spec."), inside ``if
speculative_num_draft_tokens is not None``. That validation runs from ``_handle_model_specific_adjustments``,
which ``__post_init__`` calls before ``handle_speculative_decoding`` fills the speculative defaults: a launch
that gives --speculative-algorithm without --speculative-num-draft-tokens passes the check and starts a
combination its release does not support (sglang#34786: TypeError in set_mamba_track_indices_from_reqs at
the first verify, 0.5.14). Recorded per release: the assertion (line, message, the ``if`` test around it)
and the lines of the two calls in ``__post_init__``. A release without the assertion is recorded empty.

  pip download sglang==0.5.14 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_lazy_spec.py [--check] /tmp/sw/sglang-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/sglang_lazy_spec.json"
GENERATOR = "scripts/gen_sglang_lazy_spec.py"
SERVER_ARGS = "sglang/srt/server_args.py"
_LAZY = "extra_buffer_lazy"


def _lazy_assert(node: ast.Assert) -> bool:
    # assert not self.enable_mamba_extra_buffer_lazy()  /  assert view.<strategy> != "extra_buffer_lazy"
    text = ast.unparse(node.test)
    return "enable_mamba_extra_buffer_lazy()" in text or f"'{_LAZY}'" in text


def _call_line(function: ast.FunctionDef, name: str) -> int | None:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            callee = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if callee == name:
                return node.lineno
    return None


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """The lazy-with-speculation assertion of one release's server_args.py, its guard and whether the
    validation runs before the speculative defaults; empty without the assertion."""
    text = texts.get(SERVER_ARGS)
    if text is None:
        return {}
    tree = ast.parse(text)
    found: dict[str, Any] = {}
    post_init: ast.FunctionDef | None = None
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        if function.name == "__post_init__":
            post_init = function
        for branch in ast.walk(function):
            if not isinstance(branch, ast.If) or "speculative" not in ast.unparse(branch.test):
                continue
            for node in branch.body:
                if isinstance(node, ast.Assert) and _lazy_assert(node) and not found:
                    message = node.msg
                    found = {
                        "assert_at": f"srt/server_args.py:{node.lineno}",
                        "function": function.name,
                        "guard": ast.unparse(branch.test),
                        "message": ast.literal_eval(message) if message is not None else None,
                    }
    if not found or post_init is None:
        return {}
    checks = _call_line(post_init, "_handle_model_specific_adjustments")
    defaults = _call_line(post_init, "handle_speculative_decoding") or _call_line(
        post_init, "_handle_speculative_decoding"
    )
    found["validation_call_at"] = checks
    found["spec_defaults_call_at"] = defaults
    found["before_spec_defaults"] = checks is not None and defaults is not None and checks < defaults
    found["guard_reads_draft_tokens"] = found["guard"].endswith("speculative_num_draft_tokens is not None")
    return found


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), {SERVER_ARGS}.__contains__, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: srt/server_args.py, the assertion against extra_buffer_lazy under a "
        "speculative test, and the order of _handle_model_specific_adjustments and "
        "handle_speculative_decoding in ServerArgs.__post_init__",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
