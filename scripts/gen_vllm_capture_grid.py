#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_capture_grid.json: the CUDA graph capture sizes a vLLM release
keeps an explicit ``--max-cudagraph-capture-size`` at, read by running the release's own code.

``VllmConfig._set_cudagraph_sizes`` builds the capture list from a fixed grid (1, 2, 4, multiples of 8 below
256, multiples of 16 from 256 in 0.33.0) up to the maximum the user gave, then sets the maximum to the
list's last entry with the warning "Truncating max_cudagraph_capture_size to N": a maximum off the grid is
lowered without failing (vllm#54933, vllm PR#37865, a DGX Spark launch's ``${MAX_NUM_SEQS:-6}``). This
script calls that method of each release whose resolver environment is built, on a stand-in configuration
(an explicit maximum, no capture list, CUDA graphs on, the balanced performance mode, a batched-token limit
above every maximum tried), for every maximum from 1 to ``LIMIT``, and records the maximums it keeps
unchanged (``sizes``) after checking that every other one becomes the largest of them below it. The line of
the method that writes the maximum is recorded as ``where``. Nothing is typed by hand.

    python scripts/gen_vllm_capture_grid.py [--check]

Releases without an environment keep what the bundled file holds (``--check`` compares the rest).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from argtrace.resolver.environments import find_environment, framework_environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_capture_grid.json"
GENERATOR = "scripts/gen_vllm_capture_grid.py"
LIMIT = 8192

# Run in the release's environment: the stand-in configuration holds only what the method reads.
PROBE = r"""
import inspect, json, sys
from types import SimpleNamespace
from vllm.config.vllm import VllmConfig
from vllm.config.compilation import CUDAGraphMode

LIMIT = int(sys.argv[1])

def kept(n):
    compilation = SimpleNamespace(
        cudagraph_mode=CUDAGraphMode.FULL_AND_PIECEWISE,
        max_cudagraph_capture_size=n,
        cudagraph_capture_sizes=None,
        post_init_cudagraph_sizes=lambda: None,
    )
    cfg = SimpleNamespace(
        model_config=SimpleNamespace(enforce_eager=False),
        compilation_config=compilation,
        scheduler_config=SimpleNamespace(max_num_batched_tokens=LIMIT + 1, max_num_seqs=256),
        speculative_config=None,
        performance_mode="balanced",
        num_speculative_tokens=0,
        uniform_decode_query_len=1,
    )
    VllmConfig._set_cudagraph_sizes(cfg)
    return compilation.max_cudagraph_capture_size

source, first = inspect.getsourcelines(VllmConfig._set_cudagraph_sizes)
line = next(
    first + i
    for i, text in enumerate(source)
    if text.strip() == "self.compilation_config.max_cudagraph_capture_size = valid_max_size"
)
print(json.dumps({"kept": [kept(n) for n in range(1, LIMIT + 1)], "where": f"vllm/config/vllm.py:{line}"}))
"""


def _probe(python: str) -> dict[str, Any]:
    env = dict(os.environ, VLLM_LOGGING_LEVEL="ERROR")
    out = subprocess.run(
        [python, "-c", PROBE, str(LIMIT)], capture_output=True, text=True, check=True, env=env
    )
    raw = json.loads(out.stdout.strip().splitlines()[-1])
    kept: list[int] = raw["kept"]
    sizes = [n for n, k in enumerate(kept, start=1) if k == n]
    for n, k in enumerate(kept, start=1):
        expected = max(s for s in sizes if s <= n)
        if k != expected:
            raise SystemExit(f"maximum {n} became {k}, not the largest kept size below it ({expected})")
    return {
        "sizes": sizes,
        "where": raw["where"],
        "function": "VllmConfig._set_cudagraph_sizes",
        "checked_up_to": LIMIT,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    bundled: dict[str, Any] = json.loads(OUT.read_text()) if OUT.is_file() else {}
    releases: dict[str, Any] = dict(bundled.get("releases") or {})
    for manifest in framework_environments("vllm"):
        if not manifest.version or find_environment("vllm", manifest.version) is None:
            continue
        python = str(Path(manifest.path) / "bin" / "python")
        releases[manifest.version] = _probe(python)
        print(f"vllm {manifest.version}: {len(releases[manifest.version]['sizes'])} sizes", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
