#!/usr/bin/env python3
"""Write ``src/argtrace/data/gpu_profiles.json``: the GPU profiles ``--gpu`` offers beyond the ones
``argtrace/gpus.py`` has always carried, each value read from a recorded public source.

    python scripts/gen_gpu_profiles.py          # write the file
    python scripts/gen_gpu_profiles.py --check  # exit 1 when the file is not what this script writes

A profile needs what a framework reads about the device at start-up (``argtrace.gpus.GpuProfile``):

- ``smi_total_mib``: ``memory.total`` as ``nvidia-smi`` prints it, read from a quoted ``nvidia-smi`` line
  (``... |      1MiB /  15360MiB | ...`` or ``--query-gpu=...,memory.total``): the number after the ``/``;
- ``total_bytes``: what CUDA reports as the device's total (``torch.cuda.mem_get_info()[1]``, which is
  ``cudaDeviceProp.totalGlobalMem``): from ``deviceQuery``'s ``(N bytes)`` when a log shows it, else from
  torch's out-of-memory message (``GPU 0 has a total capacity of X GiB`` / ``X GiB total capacity``),
  which rounds to 0.01 GiB (so within 5.4 MiB of the device's value; ``total_bytes_rounded`` says so);
- ``compute_capability``: NVIDIA's table of CUDA GPUs (https://developer.nvidia.com/cuda-gpus), quoted;
- ``flashinfer``: FlashInfer's kernels are built for SM75 and newer (its documented support); the
  frameworks choose other attention backends below that.

Each observation below is a line copied from the public page named with it (an issue, a pull request);
the numbers in the file are parsed from those lines by this script, never typed apart from them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "argtrace" / "data" / "gpu_profiles.json"
GENERATOR = "scripts/gen_gpu_profiles.py"
NVIDIA_TABLE = "https://developer.nvidia.com/cuda-gpus"
FLASHINFER_MIN_CC = (7, 5)

# name, nvidia-smi's product name, the nvidia-smi observation, the total observation, NVIDIA's table row
OBSERVATIONS: list[dict[str, Any]] = [
    {
        "name": "v100",
        "label": "Tesla V100-PCIE-32GB",
        "smi": (
            "https://github.com/akash-network/provider-configs/pull/90",
            "Tesla PG500-216, 32768 MiB, 0x1DF010DE",
        ),
        "total": (
            "https://github.com/liucongg/ChatGLM-Finetuning/issues/73",
            "Tried to allocate 384.00 MiB (GPU 0; 31.74 GiB total capacity; 30.41 GiB already allocated",
        ),
        "cc": "Tesla V100 7.0",
    },
    {
        "name": "v100-16g",
        "label": "Tesla V100-SXM2-16GB",
        "smi": (
            "https://github.com/1CatAI/1Cat-vLLM/issues/85",
            "|   0  Tesla V100-SXM2-16GB           On  | ... |       5MiB /  16384MiB |",
        ),
        "total": (
            "https://github.com/kchengiva/Shift-GCN/issues/34",
            "Tried to allocate 236.00 MiB (GPU 0; 15.78 GiB total capacity; 14.25 GiB already allocated",
        ),
        "cc": "Tesla V100 7.0",
    },
    {
        "name": "t4",
        "label": "Tesla T4",
        "smi": (
            "https://github.com/deepseek-ai/DeepSeek-R1/issues/546",
            "|   0  Tesla T4                       Off | ... |       1MiB /  15360MiB |",
        ),
        "total": (
            "https://github.com/xinge008/Cylinder3D/issues/109",
            "Tried to allocate 844.00 MiB (GPU 0; 14.76 GiB total capacity; 9.70 GiB already allocated",
        ),
        "cc": "Tesla T4 7.5",
    },
    {
        "name": "a10",
        "label": "NVIDIA A10",
        "smi": (
            "https://github.com/vllm-project/vllm/issues/10034",
            "|   0  NVIDIA A10                     On  | ... |       1MiB /  23028MiB |",
        ),
        "total": (
            "https://github.com/OpenBMB/MiniCPM-V/issues/640",
            "Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 22.18 GiB of which 3.47 GiB is free.",
        ),
        "cc": "NVIDIA A10 8.6",
    },
    {
        "name": "a100-40g",
        "label": "NVIDIA A100-SXM4-40GB",
        "smi": (
            "https://github.com/nanopool/phoenix-miner/issues/17",
            "|   0  NVIDIA A100-SXM...  On   | ... |   5140MiB / 40536MiB |",
        ),
        "total": (
            "https://github.com/bottlerocket-os/bottlerocket/pull/3873",
            'Device 7: "NVIDIA A100-SXM4-40GB" ... '
            "Total amount of global memory: 40339 MBytes (42298834944 bytes)",
        ),
        "cc": "NVIDIA A100 8.0",
    },
]

_SMI_SLASH = re.compile(r"/\s*(\d+)\s*MiB")
_SMI_QUERY = re.compile(r",\s*(\d+)\s*MiB")
_BYTES = re.compile(r"\((\d+) bytes\)")
_TORCH = re.compile(r"(?:total capacity of ([\d.]+) GiB|([\d.]+) GiB total capacity)")
_CC = re.compile(r"\s(\d+)\.(\d+)$")


def profile(obs: dict[str, Any]) -> dict[str, Any]:
    smi_url, smi_line = obs["smi"]
    m = _SMI_SLASH.search(smi_line) or _SMI_QUERY.search(smi_line)
    if m is None:
        raise SystemExit(f"{obs['name']}: no MiB total in {smi_line!r}")
    total_url, total_line = obs["total"]
    exact = _BYTES.search(total_line)
    rounded = None
    if exact is not None:
        total = int(exact.group(1))
    else:
        t = _TORCH.search(total_line)
        if t is None:
            raise SystemExit(f"{obs['name']}: no total in {total_line!r}")
        rounded = t.group(1) or t.group(2)
        total = round(float(rounded) * (1 << 30))
    cc = _CC.search(obs["cc"])
    if cc is None:
        raise SystemExit(f"{obs['name']}: no compute capability in {obs['cc']!r}")
    capability = (int(cc.group(1)), int(cc.group(2)))
    out: dict[str, Any] = {
        "name": obs["name"],
        "label": obs["label"],
        "smi_total_mib": int(m.group(1)),
        "total_bytes": total,
        "compute_capability": list(capability),
        "vendor": "nvidia",
        "flashinfer": capability >= FLASHINFER_MIN_CC,
        "sources": {
            "smi_total_mib": {"url": smi_url, "line": smi_line},
            "total_bytes": {"url": total_url, "line": total_line},
            "compute_capability": {"url": NVIDIA_TABLE, "row": obs["cc"]},
        },
    }
    if rounded is not None:
        out["total_bytes_rounded"] = f"{rounded} GiB"
    return out


def render() -> str:
    data = {
        "generated_by": GENERATOR,
        "profiles": [profile(o) for o in OBSERVATIONS],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        state = "up to date" if same else "differs: run scripts/gen_gpu_profiles.py"
        print(f"{OUT.relative_to(ROOT)}: {state}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(OBSERVATIONS)} profiles)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
