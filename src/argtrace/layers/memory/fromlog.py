"""``argtrace mem --from-log LOG``: read SGLang's allocation lines and compare them with the prediction.

Lines read (rank 0: a ``TP0`` tag or no rank tag), as printed by SGLang 0.5.10.post1 and later:

- ``server_args=ServerArgs(...)`` (the scalar fields this layer needs)
- ``Load weight begin. avail mem=X GB`` / ``Load weight end. ... avail mem=X GB, mem usage=Y GB.``
  (the first pair is the target model; the second pair is the speculative draft model's own ModelRunner)
- ``KV Cache is allocated. [dtype: D, ]#tokens: N, K size: X GB, V size: Y GB`` or ``... KV size: X GB`` (MLA)
  (the first is the target's pool; one after the draft's ``Load weight end`` is the draft's pool)
- ``Mamba Cache is allocated. max_mamba_cache_size: N, conv_state size: X GB, ssm_state size: Y GB``
  (+ ``intermediate_ssm_state_cache size`` with speculative decoding)
- ``max_total_num_tokens=N, ..., max_running_requests=M, context_len=C, available_gpu_mem=X GB``

Speculative decoding (EAGLE/EAGLE3/NEXTN) prints each of ``Load weight begin/end`` and ``KV Cache is
allocated`` twice on a rank, target first, in one of two orders (both seen in the fixtures):

- target pool first (SGLang 0.5.10.post1 and earlier: ``speculative/eagle_worker.py`` builds the draft's
  ``TpModelWorker`` after the target's ModelRunner has loaded *and* sized its pools): target load, target
  pools, draft load, draft KV pool. The target pool is sized from the target's own ``Load weight end``.
- loads first (0.5.15.post1 and later: ``managers/scheduler.py`` ``init_memory_pools`` runs after both
  workers loaded): target load, draft load, target pools, draft KV pool. The target pool is then sized from
  the free memory after the *draft* loaded (its ``Load weight end``), so ``post_load_gb`` is that value here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_RANK = re.compile(r"\b(?:DP\d+ )?TP(\d+)\b")
_BEGIN = re.compile(r"Load weight begin\. avail mem=([\d.]+) GB")
_END = re.compile(r"Load weight end\..*?avail mem=([\d.]+) GB, mem usage=(-?[\d.]+) GB")
_KV = re.compile(
    r"KV Cache is allocated\.(?: dtype: ([\w.]+),)? #tokens: (\d+), "
    r"(?:K size: ([\d.]+) GB, V size: ([\d.]+) GB|KV size: ([\d.]+) GB)"
)
_MAMBA = re.compile(
    r"Mamba Cache is allocated\. max_mamba_cache_size: (\d+), conv_state size: ([\d.]+) ?GB, "
    r"ssm_state size: ([\d.]+) ?GB(?: intermediate_ssm_state_cache size: ([\d.]+) ?GB)?"
    r"(?: intermediate_conv_window_cache size: ([\d.]+) ?GB)?"
)
_TOTALS = re.compile(r"max_total_num_tokens=(\d+).*?max_running_requests=(\d+)(?:.*?context_len=(\d+))?")
_ARGS = re.compile(r"server_args=ServerArgs\((.*)\)")
# vLLM 0.33 (v1/worker/gpu_worker.py, v1/core/kv_cache_utils.py, model loading in gpu_model_runner.py)
_VLLM_AVAIL = re.compile(r"Available KV cache memory: ([\d.]+) GiB")
_VLLM_TOKENS = re.compile(r"GPU KV cache size: ([\d,]+) tokens")
_VLLM_LOADED = re.compile(r"Model loading took ([\d.]+) GiB")
_ARG_PAIR = re.compile(r"(\w+)=('(?:[^'\\]|\\.)*'|None|True|False|-?[\d.]+(?:e-?\d+)?)(?=, |\)|$)")


@dataclass
class KvLine:
    """A server log line that reports the KV cache's size: tokens and gigabytes, for the target model or
    the draft."""

    line: int
    tokens: int
    k_gb: float | None
    v_gb: float | None
    kv_gb: float | None
    dtype: str | None
    worker: str = "target"  # "draft": printed after the draft model's ``Load weight end``


@dataclass
class MambaLine:
    """A server log line that reports the Mamba state cache's size: slots and gigabytes of convolution and
    SSM state."""

    line: int
    size: int
    conv_gb: float
    ssm_gb: float
    intermediate_ssm_gb: float | None = None
    intermediate_conv_gb: float | None = None


@dataclass
class LogMemory:
    """What a server's log says about memory: the server arguments it printed, free memory before and after
    loading the weights, and the caches it sized."""

    path: str
    server_args: dict[str, Any] = field(default_factory=dict)
    server_args_line: int | None = None
    pre_load_gb: float | None = None
    # The free memory the target's pools were sized from: the target's ``Load weight end``, or the draft's
    # when both models load before any pool is sized (``init_order`` "loads-first", module docstring).
    post_load_gb: float | None = None
    weights_gb: float | None = None
    draft_weights_gb: float | None = None
    target_post_load_gb: float | None = None
    draft_pre_load_gb: float | None = None
    draft_post_load_gb: float | None = None
    init_order: str | None = None  # "target-pool-first" / "loads-first"; None without a draft model
    kv: list[KvLine] = field(default_factory=list)
    mamba: MambaLine | None = None
    max_total_num_tokens: int | None = None
    max_running_requests: int | None = None
    context_len: int | None = None
    vllm_available_gib: float | None = None
    vllm_kv_tokens: int | None = None
    vllm_weights_gib: float | None = None
    lines: dict[str, int] = field(default_factory=dict)

    @property
    def target_kv(self) -> KvLine | None:
        return next((k for k in self.kv if k.worker == "target"), None)

    @property
    def draft_kv(self) -> KvLine | None:
        return next((k for k in self.kv if k.worker == "draft"), None)


def _scalar(text: str) -> Any:
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("'"):
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


def read_log(path: Path) -> LogMemory:
    """Raises ``OSError``/``UnicodeDecodeError`` for unreadable files (the caller reports them)."""
    out = LogMemory(str(path))
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            rank = _RANK.search(line)
            if rank and rank.group(1) != "0":
                continue
            if out.vllm_available_gib is None and (m := _VLLM_AVAIL.search(line)):
                out.vllm_available_gib = float(m.group(1))
                out.lines["vllm_available"] = number
                continue
            if out.vllm_kv_tokens is None and (m := _VLLM_TOKENS.search(line)):
                out.vllm_kv_tokens = int(m.group(1).replace(",", ""))
                out.lines["vllm_tokens"] = number
                continue
            if out.vllm_weights_gib is None and (m := _VLLM_LOADED.search(line)):
                out.vllm_weights_gib = float(m.group(1))
                out.lines["vllm_loaded"] = number
                continue
            if out.server_args_line is None and (m := _ARGS.search(line)):
                out.server_args = {k: _scalar(v) for k, v in _ARG_PAIR.findall(m.group(1))}
                out.server_args_line = number
            elif m := _BEGIN.search(line):
                if out.pre_load_gb is None and "load_end" not in out.lines:
                    out.pre_load_gb = float(m.group(1))
                    out.lines["load_begin"] = number
                elif "load_end" in out.lines and "draft_load_begin" not in out.lines:
                    # The draft's own ModelRunner (speculative decoding) starts loading.
                    out.draft_pre_load_gb = float(m.group(1))
                    out.lines["draft_load_begin"] = number
            elif m := _END.search(line):
                if out.post_load_gb is None:
                    out.post_load_gb, out.weights_gb = float(m.group(1)), float(m.group(2))
                    out.target_post_load_gb = out.post_load_gb
                    out.lines["load_end"] = number
                elif out.draft_weights_gb is None:
                    out.draft_post_load_gb, out.draft_weights_gb = float(m.group(1)), float(m.group(2))
                    out.lines["draft_load_end"] = number
            elif m := _KV.search(line):
                # The first pool is the target's; a pool printed once the draft model has loaded is the
                # draft's (in both init orders the draft's KV pool is allocated last).
                worker = "draft" if out.target_kv is not None and "draft_load_end" in out.lines else "target"
                out.kv.append(
                    KvLine(
                        number,
                        int(m.group(2)),
                        float(m.group(3)) if m.group(3) else None,
                        float(m.group(4)) if m.group(4) else None,
                        float(m.group(5)) if m.group(5) else None,
                        m.group(1),
                        worker,
                    )
                )
            elif (m := _MAMBA.search(line)) and out.mamba is None:
                out.mamba = MambaLine(
                    number,
                    int(m.group(1)),
                    float(m.group(2)),
                    float(m.group(3)),
                    float(m.group(4)) if m.group(4) else None,
                    float(m.group(5)) if m.group(5) else None,
                )
            elif (m := _TOTALS.search(line)) and out.max_total_num_tokens is None:
                out.max_total_num_tokens = int(m.group(1))
                out.max_running_requests = int(m.group(2))
                out.context_len = int(m.group(3)) if m.group(3) else None
                out.lines["totals"] = number
    _settle_init_order(out)
    return out


def _settle_init_order(out: LogMemory) -> None:
    """Which worker's free memory the target pool was sized from (module docstring: the two init orders)."""
    draft_end = out.lines.get("draft_load_end")
    target_kv = out.target_kv
    if draft_end is None or target_kv is None:
        return
    if target_kv.line < draft_end:
        out.init_order = "target-pool-first"
        return
    out.init_order = "loads-first"
    if out.pre_load_gb is None and out.target_post_load_gb is not None and out.weights_gb is not None:
        # "mem usage" is begin - end of the same load (model_runner.py): recover the target's begin here,
        # before post_load_gb moves to the draft's end (the caller's fallback would add the wrong pair).
        out.pre_load_gb = round(out.target_post_load_gb + out.weights_gb, 2)
    # Scheduler.init_target_memory_pool -> profile_max_num_token measures free memory after both loads.
    out.post_load_gb = out.draft_post_load_gb


SETTINGS_FROM_ARGS = (
    "tp_size",
    "dp_size",
    "enable_dp_attention",
    "mem_fraction_static",
    "max_running_requests",
    "max_total_tokens",
    "chunked_prefill_size",
    "cuda_graph_max_bs",
    "disable_cuda_graph",
    "kv_cache_dtype",
    "context_length",
    "page_size",
    "max_mamba_cache_size",
    "mamba_full_memory_ratio",
    "mamba_ssm_dtype",
    "mamba_scheduler_strategy",
    "disable_radix_cache",
    "disable_overlap_schedule",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
)


def settings_from_log(log: LogMemory) -> dict[str, Any]:
    """The resolved values the log's ``server_args`` line shows (already past ``__post_init__``)."""
    return {k: log.server_args[k] for k in SETTINGS_FROM_ARGS if log.server_args.get(k) is not None}


def gb2(value_bytes: float) -> float:
    """How SGLang prints a size: bytes / 2**30 with two decimals."""
    return round(value_bytes / (1 << 30), 2)


def compare(log: LogMemory, section: dict[str, Any], page_size: int = 1) -> list[dict[str, Any]]:
    """Rows of (quantity, predicted, logged, ok). Sizes compare the way the log prints them (2 decimals);
    pool sizes within 5 %."""
    rows: list[dict[str, Any]] = []

    def row(name: str, predicted: Any, logged: Any, ok: bool, line: int | None) -> None:
        rows.append({"quantity": name, "predicted": predicted, "logged": logged, "ok": ok, "line": line})

    kv_per_token = section.get("kv_bytes_per_token")
    if log.target_kv is not None and kv_per_token:
        k = section.get("kv_k_bytes_per_token") or kv_per_token // 2
        _kv_rows("", log.target_kv, log.target_kv.tokens + page_size, kv_per_token, k, row)
    _draft_kv_rows(log, section, page_size, row)
    conv = section.get("mamba_conv_bytes_per_slot")
    ssm = section.get("mamba_ssm_bytes_per_slot")
    if log.mamba and conv and ssm:
        m = log.mamba
        pc, ps = gb2((m.size + 1) * conv), gb2((m.size + 1) * ssm)
        row(
            "conv_state GB (max_mamba_cache_size from log)",
            pc,
            m.conv_gb,
            abs(pc - m.conv_gb) <= 0.011,
            m.line,
        )
        row("ssm_state GB (max_mamba_cache_size from log)", ps, m.ssm_gb, abs(ps - m.ssm_gb) <= 0.011, m.line)

    def within(predicted: int | None, logged: int | None, name: str, line: int | None) -> None:
        if predicted is None or logged is None:
            return
        ok = abs(predicted - logged) <= 0.05 * max(logged, 1)
        row(name, predicted, logged, ok, line)

    if log.mamba:
        within(section.get("max_mamba_cache_size"), log.mamba.size, "max_mamba_cache_size", log.mamba.line)
    if log.target_kv is not None:
        target = log.target_kv
        within(section.get("max_total_num_tokens"), target.tokens, "max_total_num_tokens", target.line)
    within(
        section.get("max_running_requests"),
        log.max_running_requests,
        "max_running_requests",
        log.lines.get("totals"),
    )
    planning = (section.get("vllm") or {}).get("planning_input")
    if planning:
        # vLLM 0.33 layout (blocks, groups, hybrid pages): compare_vllm reads vLLM's own lines.
        vlog = read_vllm_log(Path(log.path))
        rows += compare_vllm(vlog, planning)
        rows += _profile_rows(vlog, section)
    elif log.vllm_available_gib is not None and log.vllm_kv_tokens is not None and kv_per_token:
        # vLLM: tokens = available KV memory / bytes per token of all attention layers (whole blocks).
        predicted_tokens = int(log.vllm_available_gib * (1 << 30)) // kv_per_token
        within(
            predicted_tokens,
            log.vllm_kv_tokens,
            "GPU KV cache size (tokens, from the log's available memory)",
            log.lines.get("vllm_tokens"),
        )

    def weights(name: str, logged: float | None, line: int | None) -> None:
        if logged is None or not section.get("weights_estimated_bytes"):
            return
        predicted_w = round(section["weights_estimated_bytes"] / (1 << 30), 2)
        # 10 %: loading also allocates a little beyond the tensors (measured +1 % and +5 % in the fixtures);
        # a config that is not the served checkpoint (bf16 vs fp8/int4) is off by 40 % or more.
        row(name, predicted_w, logged, abs(predicted_w - logged) <= 0.10 * max(logged, 0.01), line)

    loaded, load_end = log.lines.get("vllm_loaded"), log.lines.get("load_end")
    weights("weights GiB (estimate vs Model loading took)", log.vllm_weights_gib, loaded)
    weights("weights GB (estimate vs Load weight end)", log.weights_gb, load_end)
    return rows


def _draft_kv_rows(log: LogMemory, section: dict[str, Any], page_size: int, row: Any) -> None:
    """The draft worker's KV pool (EAGLE/EAGLE3/NEXTN): the target's ``max_total_num_tokens`` over the draft's
    layers (model_runner_kv_cache_mixin.py ``_init_pools``: the draft shares the target's memory pool config;
    hybrid models ``full_attention_layer_ids=[0]``). ``sglang.plan`` stores its size as
    ``(tokens + page_size) x per-token``; the per-token bytes follow from that, and the sizes are re-made from
    the log's own ``#tokens``."""
    draft = log.draft_kv
    draft_bytes = section.get("draft_kv_bytes")
    planned = section.get("max_total_num_tokens")
    kv_per_token = section.get("kv_bytes_per_token")
    if draft is None or not draft_bytes or not planned or not kv_per_token:
        return
    per_token = int(draft_bytes) // (int(planned) + page_size)
    # K and V split as in the target's pool (the draft reuses the target's attention geometry).
    k = per_token * int(section.get("kv_k_bytes_per_token") or kv_per_token // 2) // int(kv_per_token)
    _kv_rows("draft ", draft, draft.tokens + page_size, per_token, k, row)


def _kv_rows(worker: str, kv: KvLine, slots: int, per_token: int, k: int, row: Any) -> None:
    """A KV pool's sizes re-made from the log's own ``#tokens`` (``slots``: tokens + page_size) and compared
    as the log prints them: one KV size, or K (``k`` bytes a token) and V apart."""
    if kv.kv_gb is not None:
        predicted = gb2(slots * per_token)
        ok = abs(predicted - kv.kv_gb) <= 0.011
        row(f"{worker}KV size GB (#tokens from log)", predicted, kv.kv_gb, ok, kv.line)
        return
    pk, pv = gb2(slots * k), gb2(slots * (per_token - k))
    ok = abs(pk - (kv.k_gb or 0)) <= 0.011 and abs(pv - (kv.v_gb or 0)) <= 0.011
    row(f"{worker}K size GB (#tokens from log)", pk, kv.k_gb, ok, kv.line)
    row(f"{worker}V size GB (#tokens from log)", pv, kv.v_gb, ok, kv.line)


# --- vLLM's own start-up lines (vllm 0.10-0.33: gpu_worker.py, kv_cache_utils.py, kv_cache_planning.py) ---

_VLLM_CONCURRENCY = re.compile(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x")
# The "(" before the needed GiB is vLLM's own text (kv_cache_planning.py, 0.33.0); 2026 reports quote the
# line without it (club-3090#35, spark-vllm-docker#396), so it is optional.
_VLLM_NOT_ENOUGH = re.compile(
    r"To serve at least one request with the models?'s max seq len \((\d+)\), \(?([\d.]+) GiB KV cache is "
    r"needed, which is larger than the available KV cache memory \(([\d.]+) GiB\)\."
    r"(?: Based on the available memory, the estimated maximum model length is (\d+)\.)?"
)
_WORKER_RANK = re.compile(r"\b(?:Worker_)?TP(\d+)\b|rank=(\d+)")
# gpu_worker.py's memory summary (0.33.0 line 1043; a 2026 build splits weights and non-torch, vllm#48601):
# the profile run's measured parts, and the KV memory it left, the same ``available_kv_cache_memory_bytes``
# "Available KV cache memory" prints (club-3090#1087 quotes only this line).
_VLLM_USAGE = re.compile(
    r"Actual usage is ([\d.]+) GiB for (?:consumed memory \(weights \+ non-torch\)|weight), ([\d.]+) GiB for "
    r"peak activation, (?:[\d.]+ GiB for non-torch memory, )?and ([\d.]+) GiB for CUDAGraph memory"
)
_VLLM_IN_USE = re.compile(r"Current kv cache memory in use is ([\d.]+) GiB")


@dataclass
class VllmLog:
    """Rank 0's KV cache lines of a vLLM start-up log (the first of each)."""

    available_gib: float | None = None
    kv_tokens: int | None = None
    concurrency: float | None = None
    concurrency_len: int | None = None
    error_max_len: int | None = None
    error_needed_gib: float | None = None
    error_available_gib: float | None = None
    error_estimated_len: int | None = None
    consumed_gib: float | None = None  # weights + non-torch (0.33.0), weights alone (the 2026 build)
    activation_gib: float | None = None
    cudagraph_gib: float | None = None
    lines: dict[str, int] = field(default_factory=dict)


def read_vllm_log(path: Path) -> VllmLog:
    """Raises ``OSError`` for unreadable files (the caller reports them)."""
    out = VllmLog()
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            rank = _WORKER_RANK.search(line)
            if rank and (rank.group(1) or rank.group(2)) != "0":
                continue
            if "available" not in out.lines and (m := _VLLM_AVAIL.search(line)):
                out.available_gib, out.lines["available"] = float(m.group(1)), number
            if out.kv_tokens is None and (m := _VLLM_TOKENS.search(line)):
                out.kv_tokens, out.lines["tokens"] = int(m.group(1).replace(",", "")), number
            if out.concurrency is None and (m := _VLLM_CONCURRENCY.search(line)):
                out.concurrency_len = int(m.group(1).replace(",", ""))
                out.concurrency, out.lines["concurrency"] = float(m.group(2)), number
            if out.activation_gib is None and (m := _VLLM_USAGE.search(line)):
                out.consumed_gib, out.activation_gib = float(m.group(1)), float(m.group(2))
                out.cudagraph_gib, out.lines["usage"] = float(m.group(3)), number
            if (m := _VLLM_IN_USE.search(line)) and "available" not in out.lines:
                out.available_gib, out.lines["in_use"] = float(m.group(1)), number
            if out.error_max_len is None and (m := _VLLM_NOT_ENOUGH.search(line)):
                out.error_max_len = int(m.group(1))
                out.error_needed_gib, out.error_available_gib = float(m.group(2)), float(m.group(3))
                out.error_estimated_len = int(m.group(4)) if m.group(4) else None
                out.lines["error"] = number
    return out


def compare_vllm(log: VllmLog, planning: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for vLLM's lines, computed from the log's own available memory with argtrace's layout (block
    size, groups, pages). The log prints GiB with two decimals, so a pool size is checked against the
    range the rounding allows (``exact``), and ``ok`` also accepts 5 % (a log of another vLLM version or
    one whose other ranks had less memory: vLLM takes the smallest rank's blocks)."""
    from argtrace.layers.memory import vllm

    lay = vllm.layout_from(planning)
    rows: list[dict[str, Any]] = []
    half = 0.005 * (1 << 30)
    if log.available_gib is not None and (log.kv_tokens is not None or log.concurrency is not None):
        max_len = log.concurrency_len or int(planning["max_model_len"])
        avail = log.available_gib * (1 << 30)
        lo, lo_c = vllm.capacity(lay, int(avail - half), max_len)
        hi, hi_c = vllm.capacity(lay, int(avail + half), max_len)
        mid, mid_c = vllm.capacity(lay, int(avail), max_len)
        if log.kv_tokens is not None:
            exact = lo <= log.kv_tokens <= hi
            rows.append(
                {
                    "quantity": "GPU KV cache size (tokens, from the log's available memory)",
                    "predicted": mid,
                    "logged": log.kv_tokens,
                    "range": [lo, hi],
                    "exact": exact,
                    "ok": exact or abs(mid - log.kv_tokens) <= 0.05 * max(log.kv_tokens, 1),
                    "line": log.lines.get("tokens"),
                }
            )
        if log.concurrency is not None:
            exact = round(lo_c, 2) <= log.concurrency <= round(hi_c, 2)
            rows.append(
                {
                    "quantity": f"Maximum concurrency for {max_len:,} tokens per request",
                    "predicted": round(mid_c, 2),
                    "logged": log.concurrency,
                    "range": [round(lo_c, 2), round(hi_c, 2)],
                    "exact": exact,
                    "ok": exact or abs(mid_c - log.concurrency) <= 0.05 * max(log.concurrency, 0.01),
                    "line": log.lines.get("concurrency"),
                }
            )
    if log.error_max_len is not None and log.error_needed_gib is not None:
        needed = vllm.needed_bytes(lay, log.error_max_len)
        predicted = round(needed / (1 << 30), 2)
        rows.append(
            {
                "quantity": f"KV cache GiB needed for one {log.error_max_len}-token request",
                "predicted": predicted,
                "logged": log.error_needed_gib,
                "exact": abs(predicted - log.error_needed_gib) <= 0.011,
                "ok": abs(predicted - log.error_needed_gib) <= 0.011,
                "line": log.lines.get("error"),
            }
        )
        if log.error_estimated_len is not None and log.error_available_gib is not None:
            avail = log.error_available_gib * (1 << 30)
            lo_len = vllm.estimate_max_model_len(lay, int(avail - half), log.error_max_len)
            hi_len = vllm.estimate_max_model_len(lay, int(avail + half), log.error_max_len)
            mid_len = vllm.estimate_max_model_len(lay, int(avail), log.error_max_len)
            exact = lo_len <= log.error_estimated_len <= hi_len
            rows.append(
                {
                    "quantity": "estimated maximum model length (from the log's available memory)",
                    "predicted": mid_len,
                    "logged": log.error_estimated_len,
                    "range": [lo_len, hi_len],
                    "exact": exact,
                    "ok": exact or abs(mid_len - log.error_estimated_len) <= 0.05 * log.error_estimated_len,
                    "line": log.lines.get("error"),
                }
            )
    return rows


def _profile_rows(log: VllmLog, section: dict[str, Any]) -> list[dict[str, Any]]:
    """argtrace's estimates of vLLM's profile run beside what the log's memory summary measured; a row is
    ``ok`` within 0.5 GiB (the tolerance the public-log table uses for available KV memory is 1 GiB)."""
    rows: list[dict[str, Any]] = []
    for name, logged, key in (
        ("peak activation GiB (vLLM's profile run)", log.activation_gib, "activation_bytes"),
        ("CUDA graph memory GiB (vLLM's profile run)", log.cudagraph_gib, "cuda_graph_bytes"),
    ):
        if logged is None or section.get(key) is None:
            continue
        predicted = round(int(section[key]) / (1 << 30), 2)
        ok = abs(predicted - logged) <= 0.5
        rows.append(
            {
                "quantity": name,
                "predicted": predicted,
                "logged": logged,
                "exact": False,
                "ok": ok,
                "line": log.lines.get("usage"),
            }
        )
    return rows
