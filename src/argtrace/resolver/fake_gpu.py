"""The fake-GPU profile handed to a resolver environment (``ARGTRACE_FAKE_GPU``), from ``argtrace.gpus``."""

from __future__ import annotations

import json

from argtrace.gpus import GpuSelection, parse_gpu_spec

# What the driver and an idle CUDA context hold before the server allocates anything.
IDLE_USED_BYTES = 512 << 20


def fake_gpu_profile(selection: GpuSelection) -> dict[str, object]:
    p = selection.profile
    return {
        "name": p.name,
        "product": p.label,
        "vendor": p.vendor,
        "count": selection.count,
        "memory": p.total_bytes,
        "free": p.total_bytes - IDLE_USED_BYTES,
        "smi_total_mib": p.smi_total_mib,
        "capability": list(p.compute_capability),
        "flashinfer": p.flashinfer,
        "cuda": "12.9" if p.compute_capability >= (10, 0) else "12.8",
        "driver": "575.57.08",
    }


def fake_gpu_env(spec: str | GpuSelection) -> str:
    selection = parse_gpu_spec(spec) if isinstance(spec, str) else spec
    return json.dumps(fake_gpu_profile(selection), sort_keys=True)
