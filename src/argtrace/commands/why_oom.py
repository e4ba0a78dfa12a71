"""Who held the GPU's memory when torch's "CUDA out of memory" was raised, read from the accounting the
message itself prints.

PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp, 2.1+) ends its out-of-memory message with
what it knows of the device: "GPU 0 has a total capacity of 23.53 GiB of which 20.38 MiB is free. Including
non-PyTorch memory, this process has 1.81 GiB memory in use. Process 5403 has 21.69 GiB memory in use." When
other processes hold most of the device (OpenMOSS/MOSS-TTSD#71: 21.69 of 23.53 GiB), no memory setting of
the server makes room, and the step-bound fixes of the ``cuda-oom`` signature (a lower
``--mem-fraction-static`` ...) do not apply: the GPU has to be freed or another one used. This module reads
those figures; ``why`` puts them on the signature (``holders``) and, in that case, says so as the fix.

Two readings of the same accounting keep that fix from being wrong (dots.ocr#196): a process seen from
another PID namespace (a container) is listed as "Process N has X memory in use" instead of "this process
has X": when no "this process" line is printed and one listed process holds at least what PyTorch says it
allocated and reserved ("Of the allocated memory A is allocated by PyTorch, and R is reserved ..."), that
process is this one, not another. And one allocation larger than the device's whole capacity ("Tried to
allocate 74.16 GiB" of 44.40 GiB) fits at no setting of how memory is shared: what asks for it (an input's
size, an operation that materialises a large tensor) is the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = {"B": 1 / 1024**3, "KiB": 1 / 1024**2, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}
_SIZE = r"([\d.]+) (B|KiB|MiB|GiB|TiB)"
_TOTAL = re.compile(rf"GPU (\d+) has a total capacity of {_SIZE} of which {_SIZE} is free")
_OWN = re.compile(rf"this process has {_SIZE} memory in use")
_OTHER = re.compile(rf"\bProcess (\d+) has {_SIZE} memory in use")
_ASKED = re.compile(rf"Tried to allocate {_SIZE}")
_PYTORCH = re.compile(rf"Of the allocated memory {_SIZE} is allocated by PyTorch, and {_SIZE} is reserved")

OTHERS_SHARE = 0.25  # of the device: other processes holding less leave the server's own use the question


@dataclass(frozen=True)
class Holders:
    """torch's accounting of one device at an out-of-memory error, in GiB."""

    gpu: int
    total: float
    free: float
    own: float | None
    others: dict[int, float]
    asked: float | None = None  # "Tried to allocate X"
    own_pid: int | None = None  # the listed process that is this one (seen from another PID namespace)

    @property
    def others_total(self) -> float:
        return sum(self.others.values())

    def others_hold_it(self) -> bool:
        """Other processes hold more than this one and a real share of the device."""
        return self.others_total >= max(self.own or 0.0, OTHERS_SHARE * self.total)

    def beyond_device(self) -> bool:
        """One allocation asks more than the device's whole capacity."""
        return self.asked is not None and self.asked > self.total

    def as_json(self) -> dict[str, object]:
        return {
            "gpu": self.gpu,
            "total_gib": round(self.total, 2),
            "free_gib": round(self.free, 2),
            "this_process_gib": None if self.own is None else round(self.own, 2),
            "other_processes_gib": {str(pid): round(v, 2) for pid, v in self.others.items()},
            **({"asked_gib": round(self.asked, 2)} if self.asked is not None else {}),
            **({"this_process_pid": self.own_pid} if self.own_pid is not None else {}),
        }


def _gib(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit]


def holders(text: str) -> Holders | None:
    """torch's accounting in ``text`` (the first device it names), or None when the message has none."""
    flat = " ".join(text.split())
    total = _TOTAL.search(flat)
    if total is None:
        return None
    own = _OWN.search(flat, total.end())
    others = {int(m.group(1)): _gib(m.group(2), m.group(3)) for m in _OTHER.finditer(flat, total.end())}
    asked = _ASKED.search(flat)
    own_gib = _gib(own.group(1), own.group(2)) if own else None
    own_pid = None
    pytorch = _PYTORCH.search(flat, total.end())
    if own is None and pytorch is not None and len(others) == 1:
        # no "this process" line: the process torch lists is this one when it holds what PyTorch allocated
        pid, held = next(iter(others.items()))
        if held >= _gib(pytorch.group(1), pytorch.group(2)) + _gib(pytorch.group(3), pytorch.group(4)):
            own_pid, own_gib, others = pid, held, {}
    return Holders(
        gpu=int(total.group(1)),
        total=_gib(total.group(2), total.group(3)),
        free=_gib(total.group(4), total.group(5)),
        own=own_gib,
        others=others,
        asked=_gib(asked.group(1), asked.group(2)) if asked else None,
        own_pid=own_pid,
    )


def others_fix(found: Holders) -> str:
    """The fix when other processes hold the device: none of the server's memory settings makes room."""
    listed = ", ".join(f"process {pid}: {gib:.2f} GiB" for pid, gib in found.others.items())
    own = f", this process {found.own:.2f} GiB" if found.own is not None else ""
    return (
        f"other processes hold {found.others_total:.2f} GiB of GPU {found.gpu}'s {found.total:.2f} GiB "
        f"({listed}{own}): stop them or give the server another GPU (CUDA_VISIBLE_DEVICES); no memory "
        "setting of the server makes room another process holds"
    )


def beyond_fix(found: Holders) -> str:
    """The fix when one allocation is larger than the whole device: no sharing setting makes it fit."""
    whose = ""
    if found.own_pid is not None:
        whose = f" (process {found.own_pid} is this process: it holds what PyTorch allocated)"
    return (
        f"one allocation of {found.asked:.2f} GiB is more than GPU {found.gpu}'s whole {found.total:.2f} GiB"
        f"{whose}: no memory fraction, utilization or freed GPU makes room for it; what asks for it is the "
        "question: an input's size (a long sequence, a large image or video, a large batch) or an operation "
        "that builds one large tensor (attention without a memory-efficient kernel); the traceback's "
        "innermost frames name it"
    )


# vLLM's start-up check (v1/worker/utils.py request_memory, gpu_worker.py Worker.init_device before it,
# 0.9-0.33): raise when the free memory is below gpu_memory_utilization x total, the figures in its message
_STARTUP = re.compile(
    r"Free memory on device(?: \S+)? \(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory "
    r"utilization \(([\d.]+), ([\d.]+) GiB\)"
)


@dataclass(frozen=True)
class StartupFree:
    """vLLM's free-memory check at start-up, in GiB: what was free, the device's total, the utilization asked
    and what it asks."""

    free: float
    total: float
    utilization: float
    requested: float

    @property
    def held(self) -> float:
        """Held before the engine allocated anything: other processes (and this process's CUDA context)."""
        return self.total - self.free

    def largest_fitting(self) -> float:
        """The largest --gpu-memory-utilization (two decimals) whose request the free memory covers."""
        return int(self.free / self.total * 100) / 100 if self.total else 0.0


def startup_free(text: str) -> StartupFree | None:
    m = _STARTUP.search(" ".join(text.split()))
    if m is None:
        return None
    free, total, utilization, requested = (float(m.group(i)) for i in range(1, 5))
    return StartupFree(free, total, utilization, requested)


def startup_fix(found: StartupFree) -> str:
    """The change the message's own figures give: lower the utilization to what is free, or, when other
    processes hold a real share of the device, free it (a utilization that fits leaves the model only what
    they left)."""
    asked = (
        f"--gpu-memory-utilization {found.utilization:g} asks {found.requested:.2f} GiB of the device's "
        f"{found.total:.2f} GiB, of which {found.free:.2f} GiB were free at start-up"
    )
    if found.held >= OTHERS_SHARE * found.total:
        return (
            f"{asked}: other processes held {found.held:.2f} GiB; stop them or give the server another GPU "
            f"(CUDA_VISIBLE_DEVICES); a utilization that fits (at most {found.largest_fitting():.2f}) leaves "
            f"the model only those {found.free:.2f} GiB"
        )
    return (
        f"{asked}: lower --gpu-memory-utilization to at most {found.largest_fitting():.2f}, or free the "
        f"{found.held:.2f} GiB other processes (and the CUDA context) held"
    )


def add_startup_fix(groups: list[dict[str, object]], text: str) -> None:
    """Give the sites of vLLM's start-up free-memory check the change their message's figures say."""
    found = startup_free(text)
    if found is None:
        return
    for g in groups:
        if str(g.get("message") or "").startswith("Free memory on device") and g.get("kind") == "raise":
            g["fix"] = startup_fix(found)


# vLLM's KV-cache size check (check_enough_kv_cache_memory, vllm/v1/core/kv_cache_utils.py): "... the
# available KV cache memory (4.00 GiB)". A profiled figure is what the device had left, a whole number of
# GiB only by chance; a whole number is a size given directly: --kv-cache-memory-bytes, which skips the
# profiling and the --gpu-memory-utilization share (vllm/v1/worker/gpu_worker.py:656 in 0.33.0), or on the
# CPU backend VLLM_CPU_KVCACHE_SPACE in GiB (vllm/platforms/cpu.py:341-344 in 0.33.0 turns it into
# kv_cache_memory_bytes; 4 GiB by default in the releases of vllm#29233)
_KV_AVAILABLE = re.compile(r"available KV cache memory \((\d+)\.00 GiB\)")


def add_kv_size_note(groups: list[dict[str, object]], text: str) -> None:
    """A KV-cache size refusal whose available figure is a whole number of GiB: the size was set, not
    profiled, so --gpu-memory-utilization does not change it; the setting that gave it does."""
    found = _KV_AVAILABLE.search(text)
    if found is None:
        return
    note = (
        f"; the available KV cache memory ({found.group(1)}.00 GiB) is a whole number of GiB, so it was most "
        "likely given rather than profiled: --kv-cache-memory-bytes, or on the CPU backend "
        "VLLM_CPU_KVCACHE_SPACE (GiB): raise that, or lower --max-model-len; --gpu-memory-utilization does "
        "not size the KV cache then"
    )
    for g in groups:
        if "available KV cache memory" in str(g.get("message") or "") and note not in str(g.get("fix") or ""):
            # the fraction is not what sized it: the change list keeps the other settings
            fix = re.sub(r",? --gpu-memory-utilization(?=[;,]|$)", "", str(g.get("fix") or ""))
            g["fix"] = f"{fix}{note}"
