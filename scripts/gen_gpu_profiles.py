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
- ``compute_capability``: NVIDIA's table of CUDA GPUs (https://developer.nvidia.com/cuda-gpus), quoted; for
  the China-market parts the table does not list (H20, L20, A800), a quoted public line from a machine that
  has one: SGLang's ``check_env`` (``GPU 0,1,... Compute Capability: 9.0``) or a report naming its ``SM89``;
- ``flashinfer``: FlashInfer's kernels are built for SM75 and newer (its documented support); the
  frameworks choose other attention backends below that.

Each observation below is a line copied from the public page named with it (an issue, a pull request, a
repository file at a commit); a line found only through the ``search`` tool's file index, whose repository
the index does not name, is cited as ``argtrace search index file id N`` (``read_file`` with that id shows
it). The numbers in the file are parsed from those lines by this script, never typed apart from them.

The file also carries ``aliases``: every spelling ``--gpu`` accepts for each profile, built-in or generated,
derived by one rule from its name and its ``nvidia-smi`` product name (lower case, spaces, ``-`` and ``_``
dropped; the product name as it is, without ``NVIDIA``/``AMD``, and without any of the vendor words
``NVIDIA``/``GeForce``/``Tesla``/``AMD``/``Instinct``; a GeForce ``RTX NNNN`` also as ``NNNN``), so ``L4``,
``NVIDIA L4``, ``RTX 4090`` and ``4090`` need no hand-typed case. A spelling two profiles would share stops
the script.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.gpus import BUILTIN, alias_key  # noqa: E402

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
    {
        "name": "l4",
        "label": "NVIDIA L4",
        "smi": (
            "https://github.com/AlmaLinux/wiki/blob/094ef47b163b251d2cf91a2423411b710b3a1770/docs/documentation/nvidia.md",
            "|   0  NVIDIA L4                      Off | ... |       0MiB /  23034MiB |",
        ),
        "total": (
            "https://github.com/ArcInstitute/evo2/issues/190",
            "Tried to allocate 1.60 GiB. GPU 0 has a total capacity of 22.03 GiB of which 1.25 GiB is free.",
        ),
        "cc": "NVIDIA L4 8.9",
    },
    {
        "name": "l20",
        "label": "NVIDIA L20",
        "smi": (
            "https://www.kaggle.com/competitions/nvidia-nemotron-model-reasoning-challenge/discussion/692092",
            "|   0  NVIDIA L20                     On  | ... |   34651MiB /  46068MiB |",
        ),
        "total": (
            "https://github.com/Tencent-Hunyuan/HunyuanCustom/issues/36",
            "Tried to allocate 1.40 GiB. GPU 0 has a total capacity of 44.53 GiB of which 1.29 GiB is free.",
        ),
        "cc": (
            "https://github.com/sgl-project/sglang/issues/28618",
            "We validated a local patch on 8x NVIDIA L20 (SM89), TP=8, with DeepSeek-V4-Flash-FP8.",
        ),
    },
    {
        "name": "h20",
        "label": "NVIDIA H20",
        "smi": (
            "https://github.com/deepseek-ai/DeepGEMM/issues/268",
            "|   0  NVIDIA H20                     On  | ... |       3MiB /  97871MiB |",
        ),
        "total": (
            "https://github.com/modelscope/DiffSynth-Studio/issues/1238",
            "Tried to allocate 18.00 MiB. GPU  has a total capacity of 95.00 GiB of which 6.50 MiB is free.",
        ),
        "cc": (
            "https://github.com/sgl-project/sglang/issues/3685",
            "GPU 0,1,2,3,4,5,6,7: NVIDIA H20 / GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0",
        ),
    },
    {
        "name": "a800-80g",
        "label": "NVIDIA A800-SXM4-80GB",
        "smi": (
            "https://github.com/dexmal/dexbotic/issues/41",
            "|   0  NVIDIA A800-SXM4-80GB          On  | ... |  34447MiB / 81920MiB |",
        ),
        "total": (
            "https://github.com/hahnyuan/PB-LLM/issues/3",
            "Tried to allocate 172.00 MiB. GPU 0 has a total capacty of 79.33 GiB of which 49.81 MiB is "
            "free.",
        ),
        "cc": (
            "https://github.com/sgl-project/sglang/issues/25723",
            "Does it support deploying DeepSeek v4 on A800 (SM80, Ampere)?",
        ),
    },
    {
        "name": "rtx-3090",
        "label": "NVIDIA GeForce RTX 3090",
        "smi": (
            "https://github.com/noonghunna/club-3090/issues/1127",
            "|   0  NVIDIA GeForce RTX 3090        Off | ... |   22591MiB /  24576MiB |",
        ),
        "total": (
            "https://github.com/GaoLii/DSP/issues/10",
            "Tried to allocate 18.00 MiB (GPU 0; 23.70 GiB total capacity; 1.38 GiB already allocated;",
        ),
        "cc": "GeForce RTX 3090 8.6",
    },
    {
        "name": "rtx-5090",
        "label": "NVIDIA GeForce RTX 5090",
        "smi": (
            "https://github.com/noonghunna/club-3090/issues/617",
            "|   0  NVIDIA GeForce RTX 5090        Off | ... |     492MiB /  32607MiB |",
        ),
        "total": (
            "https://github.com/aikitoria/open-gpu-kernel-modules/issues/1",
            'Device 2: "NVIDIA GeForce RTX 5090" ... '
            "Total amount of global memory: 32117 MBytes (33677180928 bytes)",
        ),
        "cc": "GeForce RTX 5090 12.0",
    },
    {
        "name": "a40",
        "label": "NVIDIA A40",
        "smi": (
            "https://github.com/thamada/nvidia-smi/blob/5f6b772848f86e938c96cb7b6ff46d11f4957cba/nvsim/A40x10_smi.py",
            "|   0  NVIDIA A40                     On  | ... |       1MiB /  46068MiB |",
        ),
        "total": (
            "https://github.com/thamada/nvidia-smi/blob/5f6b772848f86e938c96cb7b6ff46d11f4957cba/nvsim/A40x10_deviceQuery.py",
            'Device 0: "NVIDIA A40" ... Total amount of global memory: 45403 MBytes (47608692736 bytes)',
        ),
        "cc": (
            "https://github.com/thamada/nvidia-smi/blob/5f6b772848f86e938c96cb7b6ff46d11f4957cba/nvsim/A40x10_deviceQuery.py",
            'Device 0: "NVIDIA A40" ... CUDA Capability Major/Minor version number:    8.6',
        ),
    },
    {
        "name": "rtx-a6000",
        "label": "NVIDIA RTX A6000",
        "smi": (
            "argtrace search index file id 27734447929",
            "|   0  NVIDIA RTX A6000               Off | ... |       1MiB /  49140MiB |",
        ),
        "total": (
            "https://hpc-community.unige.ch/t/3741",
            'Device 0: "NVIDIA RTX A6000" ... Total amount of global memory: '
            "48790 MBytes (51160023040 bytes)",
        ),
        "cc": (
            "https://hpc-community.unige.ch/t/3741",
            'Device 0: "NVIDIA RTX A6000" ... CUDA Capability Major/Minor version number:    8.6',
        ),
    },
    {
        "name": "h100-nvl",
        "label": "NVIDIA H100 NVL",
        "smi": (
            "https://github.com/thamada/nvidia-smi/blob/198aebb60732de6969556867659756f4685637c2/nvsim/H100NVLx2_smi.py",
            "|   0  NVIDIA H100 NVL                On  | ... |       0MiB /  95830MiB |",
        ),
        "total": (
            "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/H100NVLx2_deviceQuery.py",
            'Device 0: "NVIDIA H100 NVL" ... Total amount of global memory: 95235 MBytes (99861594112 bytes)',
        ),
        "cc": (
            "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/H100NVLx2_deviceQuery.py",
            'Device 0: "NVIDIA H100 NVL" ... CUDA Capability Major/Minor version number:    9.0',
        ),
    },
    {
        "name": "gh200",
        "label": "NVIDIA GH200 480GB",
        "smi": (
            "https://github.com/hu-po/warp-ik/blob/14c393b40927aff428f87a2d5ab649765d2a157e/docs/specs/arm-gh200.md",
            "|   0  NVIDIA GH200 480GB             On  | ... |       1MiB /  97871MiB |",
        ),
        "total": (
            "argtrace search index file id 25155291802",
            'Device 0: "NVIDIA GH200 480GB" ... Total amount of global memory: '
            "97280 MBytes (102005473280 bytes)",
        ),
        "cc": (
            "argtrace search index file id 25155291802",
            'Device 0: "NVIDIA GH200 480GB" ... CUDA Capability Major/Minor version number:    9.0',
        ),
    },
]

_SMI_SLASH = re.compile(r"/\s*(\d+)\s*MiB")
_SMI_QUERY = re.compile(r",\s*(\d+)\s*MiB")
_BYTES = re.compile(r"\((\d+) bytes\)")
# torch 2.1-2.2 spelled it "capacty"
_TORCH = re.compile(r"(?:total capaci?ty of ([\d.]+) GiB|([\d.]+) GiB total capacity)")
_CC = re.compile(r"\s(\d+)\.(\d+)$")
_CC_OBSERVED = re.compile(
    r"(?:Compute Capability|Capability Major/Minor version number):\s*(\d+)\.(\d+)|\bSM(\d)(\d)\b"
)
_VENDOR_WORDS = {"nvidia", "geforce", "tesla", "amd", "instinct"}


def compute_capability(obs: dict[str, Any]) -> tuple[tuple[int, int], dict[str, str]]:
    """The device's compute capability and where it was read: NVIDIA's table row, or a quoted line."""
    cc = obs["cc"]
    if isinstance(cc, str):
        m = _CC.search(cc)
        if m is None:
            raise SystemExit(f"{obs['name']}: no compute capability in {cc!r}")
        return (int(m.group(1)), int(m.group(2))), {"url": NVIDIA_TABLE, "row": cc}
    url, line = cc
    o = _CC_OBSERVED.search(line)
    if o is None:
        raise SystemExit(f"{obs['name']}: no compute capability in {line!r}")
    major, minor = (o.group(1), o.group(2)) if o.group(1) else (o.group(3), o.group(4))
    return (int(major), int(minor)), {"url": url, "line": line}


def aliases(name: str, label: str) -> set[str]:
    """The spellings of one profile ``--gpu`` accepts (keys as ``argtrace.gpus.alias_key`` makes them)."""
    words = label.split()
    core = [w for w in words if w.lower() not in _VENDOR_WORDS]
    branded = [w for w in words if w.lower() not in ("nvidia", "amd")]  # "GeForce RTX 4090", "Tesla T4"
    keys = {alias_key(name), alias_key(label), alias_key(" ".join(core)), alias_key(" ".join(branded))}
    if len(core) == 2 and core[0].lower() == "rtx" and core[1].isdigit():
        keys.add(core[1])  # "4090": a GeForce card is named by its number alone
    return keys


def alias_table(profiles: list[tuple[str, str]]) -> dict[str, str]:
    """Every accepted spelling -> profile name; a spelling two profiles would share stops the script."""
    table: dict[str, str] = {}
    for name, label in profiles:
        for key in sorted(aliases(name, label)):
            other = table.setdefault(key, name)
            if other != name:
                raise SystemExit(f"--gpu spelling {key!r} would name both {other} and {name}")
    return dict(sorted(table.items()))


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
    capability, cc_source = compute_capability(obs)
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
            "compute_capability": cc_source,
        },
    }
    if rounded is not None:
        out["total_bytes_rounded"] = f"{rounded} GiB"
    return out


def render() -> str:
    profiles = [profile(o) for o in OBSERVATIONS]
    clash = [p["name"] for p in profiles if p["name"] in BUILTIN]
    if clash:
        raise SystemExit(f"already built into argtrace/gpus.py: {', '.join(clash)}")
    named = [(p.name, p.label) for p in BUILTIN.values()] + [(p["name"], p["label"]) for p in profiles]
    data = {
        "generated_by": GENERATOR,
        "profiles": profiles,
        "aliases": alias_table(named),
        # for a device described on the command line (argtrace.gpus.described): the same rule
        "flashinfer_min_cc": list(FLASHINFER_MIN_CC),
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
