"""What vLLM does when a hybrid (Mamba / linear-attention) model's ``max_num_seqs`` is above the Mamba cache
blocks of its KV pool, by release, following vLLM's own code.

vLLM 0.33.0 ``config/compilation.py:1510-1530`` (``CompilationConfig.resolve_cudagraph_mode_and_sizes``, after
the KV cache is sized) raises ``ValueError("max_num_seqs (N) exceeds available Mamba cache blocks (B) ...")``
when the KV cache config has Mamba layers, the CUDA graph mode has full graphs and ``max_num_seqs >
kv_cache_config.num_blocks``. ``num_blocks`` is the whole shared pool's block count (each decode sequence
needs one block for its graph), not the pool divided by the blocks one request holds. argtrace's raise-site
index has that raise in the bundled releases 0.20.2-0.33.0 and not in 0.2.7-0.19.1 (``argtrace why`` on the
message); before it vLLM capped the capture sizes instead, with a warning ("Capping cudagraph capture sizes
from max 512 to 352 to fit Mamba cache blocks (361 blocks available)", vLLM PR #30515's log). Releases
between 0.19.1 and 0.20.2 were not read.

Full graphs: the default ``cudagraph_mode`` of vLLM serve (``FULL_AND_PIECEWISE``) has them;
``--enforce-eager`` sets the mode to ``NONE`` and a ``compilation_config`` whose ``cudagraph_mode`` is
``NONE`` or ``PIECEWISE`` has none (``CUDAGraphMode.has_full_cudagraphs``).

The block count is argtrace's estimate of the pool (it rests on the estimated profile run: activation peak,
non-torch memory, CUDA graphs), so what follows from it is a warning that says so, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from argtrace import safe_json
from argtrace.layers.memory.settings import setting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

FIRST_RAISING = (0, 20, 2)  # first bundled release whose compilation.py raises (raise-site index)
LAST_CAPPING = (0, 19, 1)  # last bundled release without the raise

Outcome: TypeAlias = 'Literal["raises", "caps", "unknown", "no_full_graphs", "fits"]'


@dataclass(frozen=True)
class MambaBlockCheck:
    """vLLM's check of ``max_num_seqs`` against the Mamba cache blocks, for one launch."""

    outcome: Outcome
    max_num_seqs: int
    num_blocks: int
    cudagraph_mode: str


def _release(version: str | None) -> tuple[int, ...] | None:
    if not version:
        return None
    numbers = re.findall(r"\d+", version.split("+")[0])[:3]
    if len(numbers) < 2:
        return None
    return tuple(int(n) for n in numbers) + (0,) * (3 - len(numbers))


def cudagraph_mode(settings: Mapping[str, Any]) -> str:
    """The CUDA graph mode the launch asks for: ``NONE`` under --enforce-eager, the compilation config's
    ``cudagraph_mode`` when given, else vLLM serve's default ``FULL_AND_PIECEWISE``."""
    if setting(settings, "enforce_eager", False) is True:
        return "NONE"
    raw = setting(settings, "compilation_config")
    if isinstance(raw, str):
        try:
            raw = safe_json.loads(raw)
        except ValueError:
            raw = None
    if isinstance(raw, Mapping) and raw.get("cudagraph_mode") is not None:
        return str(raw["cudagraph_mode"]).upper()
    return "FULL_AND_PIECEWISE"


def check(
    settings: Mapping[str, Any], version: str | None, max_num_seqs: int, num_blocks: int
) -> MambaBlockCheck:
    """What the release does with ``max_num_seqs`` against the pool's ``num_blocks`` (0.33.0 when no release
    is named)."""
    mode = cudagraph_mode(settings)
    if max_num_seqs <= num_blocks:
        outcome: Outcome = "fits"
    elif mode in ("NONE", "PIECEWISE"):
        outcome = "no_full_graphs"
    else:
        release = _release(version)
        if release is None or release >= FIRST_RAISING:
            outcome = "raises"
        elif release <= LAST_CAPPING:
            outcome = "caps"
        else:
            outcome = "unknown"
    return MambaBlockCheck(
        outcome=outcome, max_num_seqs=max_num_seqs, num_blocks=num_blocks, cudagraph_mode=mode
    )
