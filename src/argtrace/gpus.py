"""The GPU catalog shared by ``--gpu`` (resolution's fake device) and the memory layer.

A profile is what a framework reads about one device at start-up:

- ``smi_total_mib``: ``memory.total`` as ``nvidia-smi`` (``amd-smi`` for AMD) prints it, in MiB. SGLang
  0.5.10.post1 reads exactly this (``get_nvgpu_memory_capacity`` in ``srt/utils/common.py``) to choose
  ``chunked_prefill_size``, ``cuda_graph_max_bs`` and the default ``mem_fraction_static``.
- ``total_bytes``: what ``torch.cuda.mem_get_info()`` reports as total (the driver keeps a few hundred MiB
  that nvidia-smi counts). vLLM's ``gpu_memory_utilization`` and SGLang's ``avail mem`` lines are
  relative to this.
- compute capability, vendor, and whether flashinfer kernels exist for it (they change defaults).

Values are the ones printed by real devices in public logs (H100 SXM 80 GB: 81559 MiB / 79.19 GiB; RTX
4090: 24564 MiB / 23.64 GiB; ...). ``NAME[xCOUNT]`` selects COUNT identical devices; the count is the
trailing ``x<digits>`` so that ``mi300x`` and ``mi300xx8`` both parse.

More profiles (V100 32/16 GB, T4, A10, A100 40 GB, L4, L20, H20, A800 80 GB, RTX 3090, RTX 5090, A40, RTX
A6000, H100 NVL, GH200 480GB) come from ``data/gpu_profiles.json``, written by ``scripts/gen_gpu_profiles.py``
from quoted public ``nvidia-smi``/CUDA lines (``deviceQuery``) and NVIDIA's table of compute capabilities,
each value with its source. The same file holds the
spellings ``--gpu`` accepts for every profile (``NVIDIA L4``, ``RTX 4090``, ``4090``), derived there by one
rule from each name and ``nvidia-smi`` product name; a spelling is looked up by ``alias_key``.

A device the catalog lacks is described as ``nvidia-smi --query-gpu=name,memory.total,compute_cap
--format=csv,noheader`` prints it (``described``): ``--gpu "NVIDIA GeForce RTX 4070 Ti SUPER, 16376 MiB,
8.9"``. Its CUDA total is the one value not printed there; it is estimated on the side that keeps errors
true (the profile's ``estimate`` says how).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

Vendor: TypeAlias = 'Literal["nvidia", "amd"]'

MIB = 1 << 20
GIB = 1 << 30


@dataclass(frozen=True)
class GpuProfile:
    """A GPU model argtrace knows: its memory as ``nvidia-smi`` reports it, its compute capability and
    vendor, and whether FlashInfer supports it."""

    name: str
    label: str
    smi_total_mib: int
    total_bytes: int
    compute_capability: tuple[int, int]
    vendor: Vendor
    flashinfer: bool
    # how the CUDA total of a device described on the command line was estimated (``described``); "" for a
    # profile of the catalog, every value of which was read from a real device
    estimate: str = ""

    @property
    def total_gib(self) -> float:
        return self.total_bytes / GIB


BUILTIN: dict[str, GpuProfile] = {
    p.name: p
    for p in (
        GpuProfile("h100", "NVIDIA H100 80GB HBM3", 81559, 85_029_158_912, (9, 0), "nvidia", True),
        GpuProfile("h200", "NVIDIA H200", 143771, 150_110_011_392, (9, 0), "nvidia", True),
        GpuProfile("b200", "NVIDIA B200", 183359, 191_503_138_816, (10, 0), "nvidia", True),
        GpuProfile("a100-80g", "NVIDIA A100-SXM4-80GB", 81920, 85_097_971_712, (8, 0), "nvidia", True),
        GpuProfile("l40s", "NVIDIA L40S", 46068, 47_697_362_944, (8, 9), "nvidia", True),
        GpuProfile(
            "rtx-pro-6000",
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
            97887,
            102_005_866_496,
            (12, 0),
            "nvidia",
            True,
        ),
        GpuProfile("rtx-4090", "NVIDIA GeForce RTX 4090", 24564, 25_386_352_640, (8, 9), "nvidia", True),
        GpuProfile("mi300x", "AMD Instinct MI300X", 196592, 205_822_885_888, (9, 4), "amd", False),
    )
}


def alias_key(text: str) -> str:
    """How a ``--gpu`` spelling is compared: lower case, without spaces, ``-`` and ``_`` (``RTX 4090`` ->
    ``rtx4090``)."""
    return re.sub(r"[\s_\-]+", "", text.strip().lower())


def _generated() -> dict[str, Any]:
    """``data/gpu_profiles.json`` (scripts/gen_gpu_profiles.py), or nothing when it cannot be read."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent / "data" / "gpu_profiles.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _generated_profiles(raw: list[dict[str, Any]]) -> list[GpuProfile]:
    """The profiles of the generated file."""
    return [
        GpuProfile(
            str(p["name"]),
            str(p["label"]),
            int(p["smi_total_mib"]),
            int(p["total_bytes"]),
            (int(p["compute_capability"][0]), int(p["compute_capability"][1])),
            "amd" if p["vendor"] == "amd" else "nvidia",
            bool(p["flashinfer"]),
        )
        for p in raw
    ]


_DATA = _generated()
GPUS: dict[str, GpuProfile] = dict(BUILTIN)
GPUS.update((p.name, p) for p in _generated_profiles(_DATA.get("profiles") or []) if p.name not in GPUS)
# spelling -> profile name; each profile's own name resolves even without the generated file
ALIASES: dict[str, str] = {alias_key(name): name for name in GPUS}
ALIASES.update((str(k), str(v)) for k, v in (_DATA.get("aliases") or {}).items() if v in GPUS)

_SPEC = re.compile(r"^(?P<name>.+?)x(?P<count>\d+)$")


@dataclass(frozen=True)
class GpuSelection:
    """The GPUs a check assumes (``--gpu h100x8``): a model and how many of it."""

    profile: GpuProfile
    count: int

    @property
    def spec(self) -> str:
        return self.profile.name if self.count == 1 else f"{self.profile.name}x{self.count}"


# nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader: "NVIDIA GeForce RTX 4070 Ti
# SUPER, 16376 MiB, 8.9" (the name may be left out), then a count as after a profile's name ("... 8.9x2")
# Matched whole against the stripped text, the name starting and ending with a non-space: a leading
# ``\s*`` before a name that may itself hold spaces made 20,000 spaces take 2 s and the 128 KiB an argument
# may hold 90 s (safe33). nvidia-smi's names are under 100 characters; a longer text is no such line.
_DESCRIBED = re.compile(
    r"(?:(?P<name>[^,\s](?:[^,]*[^,\s])?)\s*,\s*)?(?P<mib>\d{1,7})\s*MiB\s*,\s*(?P<major>\d{1,2})\.(?P<minor>\d)"
    r"\s*(?:x\s*(?P<count>\d{1,5}))?",
    re.IGNORECASE,
)
MAX_DESCRIBED = 256
DESCRIBE_HINT = (
    "or describe the device as nvidia-smi prints it: --gpu 'NAME, MEMORY MiB, CC' "
    "(nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader)"
)


def _shown(spec: str) -> str:
    """``spec`` quoted in a message, at most ``MAX_DESCRIBED`` characters of it (an argument may hold
    128 KiB)."""
    if len(spec) <= MAX_DESCRIBED:
        return repr(spec)
    # cut where a word ends: a token cut in two is a head the redactor no longer knows by its shape
    head = re.sub(r"[^\s,]*$", "", spec[: MAX_DESCRIBED + 1])
    return f"{head!r}... ({len(spec):,} characters)"


def _described_match(spec: str) -> re.Match[str] | None:
    """The nvidia-smi line ``spec`` is (``_DESCRIBED``), or None; a text longer than any such line is none."""
    text = spec.strip()
    return _DESCRIBED.fullmatch(text) if len(text) <= MAX_DESCRIBED else None


def described(spec: str) -> GpuSelection | None:
    """A device the catalog lacks, from the line ``nvidia-smi --query-gpu=name,memory.total,compute_cap
    --format=csv,noheader`` prints for it (``NVIDIA GeForce RTX 4070 Ti SUPER, 16376 MiB, 8.9``, the name
    optional, ``xN`` for N of them); None for any other text.

    nvidia-smi's total counts memory the driver keeps back, which CUDA's total (``total_bytes``, what the
    frameworks size against) does not. The catalog's NVIDIA devices keep back 197-764 MiB; the least of
    them is taken, which gives the largest total such a device could have: a launch found not to fit would
    not fit with any of the others, while a close fit is only as sure as the estimate (``estimate``).
    FlashInfer's support follows the capability by the catalog's rule.
    """
    match = _described_match(spec)
    if match is None:
        return None
    mib, count = int(match.group("mib")), int(match.group("count") or 1)
    capability = (int(match.group("major")), int(match.group("minor")))
    catalog = [p for p in GPUS.values() if p.vendor == "nvidia"]
    kept = sorted(p.smi_total_mib * MIB - p.total_bytes for p in catalog)
    least = kept[0]
    if count < 1:
        raise ValueError(f"GPU count must be at least 1 in {_shown(spec)}")
    if mib * MIB <= least:
        raise ValueError(f"{_shown(spec)}: {mib} MiB is less than what a device's driver keeps back")
    rule = _DATA.get("flashinfer_min_cc")
    if not isinstance(rule, list) or len(rule) != 2:
        raise ValueError(f"{_shown(spec)}: the GPU catalog (data/gpu_profiles.json) cannot be read")
    name = match.group("name") or ""
    total = mib * MIB - least
    estimate = (
        f"described as nvidia-smi prints it: {mib} MiB, compute capability {capability[0]}.{capability[1]}; "
        f"CUDA's total taken as {total / MIB:.0f} MiB, less the {least / MIB:.0f} MiB the driver keeps back "
        f"on the catalog's device that keeps least ({len(catalog)} NVIDIA devices keep "
        f"{least / MIB:.0f}-{kept[-1] / MIB:.0f} MiB): a launch found not to fit would fit on none of them"
    )
    profile = GpuProfile(
        f"{name + ', ' if name else ''}{mib} MiB, {capability[0]}.{capability[1]}",
        name or f"a GPU of {mib} MiB",
        mib,
        total,
        capability,
        "nvidia",
        capability >= (int(rule[0]), int(rule[1])),
        estimate,
    )
    return GpuSelection(profile, count)


def count_given(spec: str) -> bool:
    """Whether ``spec`` names a count (``h100x8``, ``h100x1``) and not only a model (``h100``, ``mi300x``).

    A bare model name means "as many of these as the launch needs": the user said which GPU, not how many,
    so no finding may rest on a count of 1 they never wrote.
    """
    described_as = _described_match(spec)
    if described_as is not None:
        return described_as.group("count") is not None
    key = alias_key(spec)
    if key in ALIASES:
        return False
    match = _SPEC.match(key)
    return bool(match and match.group("name") in ALIASES)


def parse_gpu_spec(spec: str) -> GpuSelection:
    """``h100`` -> (h100, 1); ``rtx-pro-6000x4`` -> (rtx-pro-6000, 4); ``mi300x`` -> (mi300x, 1);
    ``NVIDIA L4`` -> (l4, 1); ``RTX 4090 x2`` -> (rtx-4090, 2): any spelling of ``ALIASES``; a device
    described as nvidia-smi prints it (``described``).

    Raises ``ValueError`` with the known names for an unknown profile or a zero count.
    """
    key = alias_key(spec)
    if key in ALIASES:
        return GpuSelection(GPUS[ALIASES[key]], 1)
    match = _SPEC.match(key)
    if match and match.group("name") in ALIASES:
        count = int(match.group("count"))
        if count < 1:
            raise ValueError(f"GPU count must be at least 1 in {_shown(spec)}")
        return GpuSelection(GPUS[ALIASES[match.group("name")]], count)
    selection = described(spec)
    if selection is not None:
        return selection
    known = ", ".join(sorted(GPUS))
    raise ValueError(
        f"unknown GPU profile {_shown(spec)}; known: {known} (append xN for N GPUs, e.g. h100x8), "
        f"{DESCRIBE_HINT}"
    )
