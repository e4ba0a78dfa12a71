"""The running requests an explicit ``--max-mamba-cache-size`` admits on SGLang, against
``--max-running-requests`` (RS074).

A hybrid model (Mamba or linear-attention layers beside attention: Qwen3-Next, Qwen3.5/3.6, Nemotron-H,
Falcon-H1) keeps each running request's recurrent state in slots of the Mamba state pool, whose size
``--max-mamba-cache-size`` fixes when given. The scheduler caps the running requests at
``max_mamba_cache_size // ratio`` (``_resolve_max_num_reqs``, from 0.5.16 ``resolve_max_num_reqs``), where
the ratio is the slots one request holds (``_calculate_mamba_ratio``): 1 without the radix cache; else 3
(2 under ``SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK`` where the release reads it) plus the extra buffer's ping-pong
slots: 2 for ``extra_buffer`` with the overlap scheduler, 1 without it, 1 for ``extra_buffer_lazy``; 1 for
``no_buffer`` under the skip. The per-release constants and branches are read from the wheels by
scripts/gen_sglang_mamba_slots.py (frameworks/data/sglang_mamba_slots.json, 0.5.10.post1-0.5.23; earlier
releases compute the ratio inline and are not judged). SGLang 0.5.17 and later log the cap ("max_running_
requests is capped to N by the mamba state cache"), earlier ones apply it silently: the requests the launch
asks for beyond it queue (MiaAI-Lab/Qwen3.8-27B-SGLang-DGX-Spark#7: a pool sized at 4 slots per request with
``extra_buffer``'s 5 caps 16 requests to 12).

Judged only when the launch writes both sizes and the strategy (``--mamba-radix-cache-strategy``, or the
older ``--mamba-scheduler-strategy``) as ``extra_buffer``, ``extra_buffer_lazy`` or ``no_buffer``, or turns
the radix cache off: ``auto`` resolves by the model, the platform and speculative decoding. Not with DP
attention (per-rank shares) nor on a PD decode server (its own pool). The model is assumed hybrid: only
hybrid models read ``--max-mamba-cache-size``; the overlap scheduler is assumed on unless
``--disable-overlap-schedule`` or pipeline parallelism turns it off (both as the release's defaults do).
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SKIP = "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK"


_TABLE = "frameworks/data/sglang_mamba_slots.json"  # written by scripts/gen_sglang_mamba_slots.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_sglang_mamba_slots.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def slots_per_request(
    facts: Mapping[str, Any], *, radix: bool, strategy: str, overlap: bool, skip: bool
) -> tuple[int, str]:
    """The release's ratio (module docstring) and how it is made, for the message."""
    if not radix:
        return 1, "1 without the radix cache"
    drop = int(facts["skip_drop"]) if skip and "skip_drop" in facts else 0
    base = int(facts["base"]) - drop
    said = f"{base} per request" + (f" under {_SKIP}" if drop else "")
    if strategy == "extra_buffer_lazy" and overlap and "lazy" in facts:
        extra, how = int(facts["lazy"]), "the lazy ping-pong buffer"
    elif strategy in ("extra_buffer", "extra_buffer_lazy"):
        extra = int(facts["overlap" if overlap else "no_overlap"])
        how = "the ping-pong buffer " + ("with the overlap scheduler" if overlap else "without it")
    elif drop and "no_buffer_skip" in facts:
        extra, how = int(facts["no_buffer_skip"]), f"no_buffer under {_SKIP}"
    else:
        return base, said
    return base + extra, f"{said} plus {extra} for {how}"


def _flag_on(report: Report, name: str) -> bool:
    setting = report.setting(name)
    return bool(setting is not None and setting.effective is True)


def _skip_decode_lock(report: Report) -> bool:
    server = report.described_server()
    word = server.env.get(_SKIP) if server is not None else None
    return word is not None and (word.value or "").strip().lower() in ("1", "true", "yes", "on")


def mamba_slots(report: Report) -> LayerResult:
    """RS074 for an SGLang launch whose Mamba state pool admits fewer requests than --max-running-requests."""
    result = LayerResult()
    release = report.parsed_release("sglang")
    if release is None:
        return result  # (Report.parsed_release)
    facts = release_facts(release)
    pool = report.written("max_mamba_cache_size")
    wanted = report.written("max_running_requests")
    if facts is None or pool is None or wanted is None:
        return result
    size, requests = (
        report.effective_int("max_mamba_cache_size"),
        report.effective_int("max_running_requests"),
    )
    if size is None or requests is None or size < 0 or requests < 1:
        return result
    dp = report.effective_int("dp_size") or 1
    mode = report.setting("disaggregation_mode")
    if (_flag_on(report, "enable_dp_attention") and dp > 1) or (
        mode is not None and mode.effective == "decode"
    ):
        return result  # per-rank shares, or the PD decode server's own pool (module docstring)
    radix = not _flag_on(report, "disable_radix_cache")
    strategy = ""
    for name in ("mamba_radix_cache_strategy", "mamba_scheduler_strategy"):
        written = report.written(name)
        if written is not None and isinstance(written.effective, str):
            strategy = written.effective
            break
    if radix and strategy not in ("extra_buffer", "extra_buffer_lazy", "no_buffer"):
        return result  # auto (or not written): the release resolves it by the model (module docstring)
    overlap = not _flag_on(report, "disable_overlap_schedule") and (report.effective_int("pp_size") or 1) <= 1
    ratio, how = slots_per_request(
        facts, radix=radix, strategy=strategy, overlap=overlap, skip=_skip_decode_lock(report)
    )
    cap = size // ratio
    if cap >= requests:
        return result
    from argtrace.rules.start_values import RS074

    at = wanted.last_at or pool.last_at
    ratio_at, cap_at = facts.get("ratio_at"), facts.get("cap_at")
    under = f" under --mamba-radix-cache-strategy {strategy}" if radix else " (--disable-radix-cache)"
    lost = (
        "no request can run"
        if cap == 0
        else f"{requests - cap} of the {requests} requests the launch allows wait in the queue"
    )
    message = (
        f"--max-running-requests {requests} is capped to {cap} by the Mamba state pool: "
        f"--max-mamba-cache-size "
        f"{size} holds {size} // {ratio} = {cap} requests at {ratio} state slots each{under} ({how}; "
        f"_calculate_mamba_ratio, {ratio_at}; the cap at {cap_at}), so {lost} (assumed: a hybrid "
        "Mamba/linear-attention model, the only kind that reads --max-mamba-cache-size"
        + (
            ", with the overlap scheduler on"
            if radix and strategy.startswith("extra_buffer") and overlap
            else ""
        )
        + ")"
    )
    result.findings.append(
        RS074.finding(
            message,
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"max_running_requests={requests}, max_mamba_cache_size={size}, "
                    f"strategy={strategy or 'none (radix cache off)'}",
                ),
                Evidence("resolution", f"{ratio_at}; {cap_at}", f"{ratio} slots per request -> cap {cap}"),
            ],
            setting="max_running_requests",
            fix=_fix(facts, size, requests, ratio, strategy, radix, overlap),
            severity="warning",
            basis="assumed",
        )
    )
    return result


def _fix(
    facts: Mapping[str, Any], size: int, requests: int, ratio: int, strategy: str, radix: bool, overlap: bool
) -> str:
    ways = [f"give --max-mamba-cache-size {requests * ratio} ({requests} x {ratio} slots)"]
    if radix and strategy == "extra_buffer" and overlap and "lazy" in facts:
        lazy = ratio - int(facts["overlap"]) + int(facts["lazy"])
        if size // lazy >= requests:
            ways.append(
                f"--mamba-radix-cache-strategy extra_buffer_lazy ({lazy} slots per request: "
                f"{size} // {lazy} = "
                f"{size // lazy})"
            )
    cap = size // ratio
    if cap >= 1:
        ways.append(f"--max-running-requests {cap}, what the pool admits")
    return ", or ".join(ways)
