"""What a fixed HiCache host pool pins on one node (MM014).

SGLang's ``--hicache-size N`` sizes the host KV pool of each rank, not of the server: every scheduler
process (one per GPU) builds its own ``HostKVCache`` of ``N`` GB (SGLang 0.5.23
``mem_cache/pool_host/base.py:221-224``, ``int(host_size * 1e9 // self.size_per_token)``). The ranks on
one node are the GPUs the start needs there (``nodescope.gpus_needed``: TP x PP, x DP without DP
attention, over ``--nnodes``), so a node pins ``N`` times that many GB of host memory; sglang PR#29263 met
four TP ranks pinning 150 GB each where the user had read 150 GB for the server. How much host memory the
node has is not known here, so this is a note with the total, never a verdict.

A hybrid model (Mamba or linear-attention layers) has a second host pool per rank, for its recurrent
states (``MambaPoolHost``). SGLang 0.5.10.post1-0.5.16 size it with the same unscaled ``--hicache-size``
as the KV pool, so each rank pins twice the GB the flag names (sglang#29034: 40 GB per rank, 320 GB on
eight ranks, for ``--hicache-size 20``); 0.5.17 on split the size between the pools. Which releases pass it
unscaled is read from the wheels by scripts/gen_sglang_hicache_mamba_host.py
(frameworks/data/sglang_hicache_mamba_host.json). That doubling the user did not write is a warning on a
release the launch names; on one the analysis assumes, the note names the releases that double it. The
model is taken as hybrid when the launch writes a Mamba setting (only hybrid models read them).
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
    doubling = _doubling(report)
    doubled = doubling is not None and doubling[0] == "analysed"
    if needed is None or (needed[0] < 2 and not doubled):
        return result
    ranks, how = needed
    at = size.history[-1].at if size.history else None
    from argtrace.rules.memory import MM014

    total = per_rank * ranks
    evidence = [Evidence("parser", at, f"--hicache-size {_gb(per_rank)}, {ranks} ranks per node")]
    message = (
        f"--hicache-size {_gb(per_rank)} sizes the host KV cache of each rank, not of the server: the "
        f"{ranks} ranks on this node ({how}) pin {_gb(total)} GB of host memory together"
    )
    if doubling is None:
        result.findings.append(MM014.finding(message, at=at, evidence=evidence, setting="hicache_size"))
        return result
    kind, releases, mamba = doubling
    evidence.append(Evidence("parser", report.written(mamba).last_at, f"{mamba}: read by hybrid models only"))  # type: ignore[union-attr]
    named = report.framework.version is not None
    if kind == "others":
        message += (
            f"; if this runs sglang {_span(releases)}, the Mamba host pool of this hybrid model takes the "
            f"same {_gb(per_rank)} GB per rank again ({_gb(2 * total)} GB in all): those releases pass the "
            "unscaled --hicache-size to it"
        )
        result.findings.append(
            MM014.finding(message, at=at, evidence=evidence, setting="hicache_size", basis="assumed")
        )
        return result
    release = releases[0]
    calls = _releases()[release]["calls"]
    evidence.append(
        Evidence(
            "resolution",
            f"sglang {release}: " + ", ".join(f"sglang/{c['at']}" for c in calls),
            "MambaPoolHost(..., server_args.hicache_size)",
        )
    )
    plural = "s" if ranks > 1 else ""
    message = (
        f"--hicache-size {_gb(per_rank)} is pinned twice per rank on this hybrid model: sglang {release} "
        "gives the Mamba host pool the same unscaled size as the KV host pool (MambaPoolHost(..., "
        f"server_args.hicache_size), sglang/{calls[0]['at']}), so each rank pins {_gb(2 * per_rank)} GB and "
        f"the {ranks} rank{plural} on this node ({how}) {_gb(2 * total)} GB of host memory, twice what the "
        "flag names" + ("" if named else " (assumed: nothing names the release)")
    )
    result.findings.append(
        MM014.finding(
            message,
            at=at,
            evidence=evidence,
            setting="hicache_size",
            severity="warning",
            basis="framework-code" if named else "assumed",
            fix=f"halve --hicache-size (sglang {release} pins it twice per rank), or use --hicache-ratio, "
            "which sizes each host pool from its own device pool; sglang 0.5.17 and later split "
            "--hicache-size between the pools",
        )
    )
    return result


# written by scripts/gen_sglang_hicache_mamba_host.py
_TABLE = "frameworks/data/sglang_hicache_mamba_host.json"


def _releases() -> dict[str, Any]:
    from argtrace.package_data import releases_table

    return releases_table(_TABLE)


def _doubling(report: Report) -> tuple[str, list[str], str] | None:
    """("analysed", [release], setting) when the release analysed passes the unscaled --hicache-size to the
    Mamba host pool of a hybrid model (``setting``: the hybrid-only flag the launch writes); ("others",
    releases, setting) when nothing names the release, the assumed one does not and some accepted ones do;
    None otherwise, and without a hybrid-only flag."""
    from argtrace.layers.mamba_dtype import HYBRID_SETTINGS  # read by hybrid models only

    mamba = next((n for n in HYBRID_SETTINGS if report.written(n) is not None), None)
    release = report.framework.release
    if mamba is None or not release:
        return None
    table = _releases()
    unscaled = [r for r, f in table.items() if isinstance(f, dict) and f.get("unscaled")]
    if release in unscaled:  # the analysed release doubles it (named or assumed: the finding's basis says)
        return ("analysed", [release], mamba)
    if report.framework.version is not None:
        return None
    others = [r for r in report.framework.accepted_by or () if r in unscaled]
    return ("others", others, mamba) if others else None


def _span(releases: list[str]) -> str:
    from argtrace.layers.disagg_spec import _span as span

    return span(releases)


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
