"""What a fixed HiCache host pool pins on one node (MM014).

SGLang's ``--hicache-size N`` sizes the host KV pool of each rank, not of the server: every scheduler
process (one per GPU) builds its own ``HostKVCache`` of ``N`` GB (SGLang 0.5.23
``mem_cache/pool_host/base.py:221-224``, ``int(host_size * 1e9 // self.size_per_token)``). The ranks on
one node are the GPUs the start needs there (``nodescope.gpus_needed``: TP x PP, x DP without DP
attention, over ``--nnodes``), so a node pins ``N`` times that many GB of host memory; sglang PR#29263 met
four TP ranks pinning 150 GB each where the user had read 150 GB for the server. How much host memory the
node has is not known here, so this is a note with the total, never a verdict.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# SGLang's defaults of the sizes gpus_needed reads (a setting the launch does not give is its default)
_DEFAULTS = {"tp_size": 1, "pp_size": 1, "dp_size": 1, "nnodes": 1, "enable_dp_attention": False}


def hicache_host(report: Report) -> LayerResult:
    """MM014: the host memory a fixed ``--hicache-size`` pins on one node, when several ranks share it."""
    from argtrace.layers.nodescope import gpus_needed

    result = LayerResult()
    if report.framework.name != "sglang":
        return result
    enabled = report.setting("enable_hierarchical_cache")
    size = report.setting("hicache_size")
    if enabled is None or enabled.effective is not True or size is None:
        return result
    per_rank = _number(size.effective)
    if per_rank is None or per_rank <= 0:
        return result
    values: dict[str, Any] = dict(_DEFAULTS)
    for name in _DEFAULTS:
        setting = report.setting(name)
        if setting is not None and setting.effective is not None:
            values[name] = setting.effective
    needed = gpus_needed("sglang", values)
    if needed is None or needed[0] < 2:
        return result
    ranks, how = needed
    at = size.history[-1].at if size.history else None
    from argtrace.rules.memory import MM014

    total = per_rank * ranks
    result.findings.append(
        MM014.finding(
            f"--hicache-size {_gb(per_rank)} sizes the host KV cache of each rank, not of the server: the "
            f"{ranks} ranks on this node ({how}) pin {_gb(total)} GB of host memory together",
            at=at,
            evidence=[Evidence("parser", at, f"--hicache-size {_gb(per_rank)}, {ranks} ranks per node")],
            setting="hicache_size",
        )
    )
    return result


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def _gb(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
