"""An explicit CUDA graph capture maximum the vLLM release lowers to its capture grid (RS069).

``VllmConfig._set_cudagraph_sizes`` builds the capture list from a fixed grid up to the maximum given with
``--max-cudagraph-capture-size`` (or ``--compilation-config '{"max_cudagraph_capture_size": N}'``), then sets
the maximum to the list's last entry and logs "Truncating max_cudagraph_capture_size to M": a maximum off
the grid is lowered, and batches between M and N run without CUDA graphs (vllm#54933: 42 -> 40 dropped
the 6 x 7-token speculative decode step to eager; a DGX Spark launch's ``${MAX_NUM_SEQS:-6}`` -> 4; vllm
PR#37865: 300 -> 288). The grid is each release's own, read by running that method
(``frameworks/vllm_capture_grid.py``).

Nothing is said when CUDA graphs are off (``--enforce-eager``, ``cudagraph_mode`` NONE), when a capture list
is given (the release then refuses a maximum that differs from it), in the interactivity performance mode
(another list), or when ``--max-num-batched-tokens`` is below the maximum (the limit caps it). With a named
release whose code was not run, a note says what the release that was run does.
"""

from __future__ import annotations

from argtrace.frameworks.vllm_capture_grid import CaptureGrid
from argtrace.layers.nodescope import as_int
from argtrace.model import Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the settings that carry the maximum (the flag, or the key of --compilation-config; 0.33.0 refuses both)
MAXIMUM = ("max_cudagraph_capture_size", "compilation_config.max_cudagraph_capture_size")
CAPTURE_LISTS = ("cudagraph_capture_sizes", "compilation_config.cudagraph_capture_sizes")


def _value(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def _graphs_off(report: Report) -> bool:
    if _value(report, "enforce_eager") in (True, "true", "True"):
        return True
    mode = _value(report, "compilation_config.cudagraph_mode")
    return isinstance(mode, str) and mode.strip().upper() == "NONE"


def _decode_step(report: Report) -> int | None:
    """With a draft, the widest uniform decode step in tokens: max_num_seqs x (1 + speculative tokens)."""
    seqs = as_int(_value(report, "max_num_seqs"))
    drafts = as_int(_value(report, "speculative_config.num_speculative_tokens"))
    if seqs is None or not drafts:
        return None
    return seqs * (1 + drafts)


def _fix(report: Report, grid: CaptureGrid, maximum: int, kept: int) -> str:
    step = _decode_step(report)
    if step is not None and step >= maximum:  # the maximum was meant to cover the decode step
        seqs = _value(report, "max_num_seqs")
        drafts = _value(report, "speculative_config.num_speculative_tokens")
        said = (
            f"the maximum counts tokens, and a decode step of {seqs} requests with {drafts} speculative "
            f"tokens is {seqs} x (1 + {drafts}) = {step} tokens"
        )
        if grid.kept(step) == step:
            return f"give {step}: {said}"
        # off the grid too: a capture list is kept as given (VllmConfig._set_cudagraph_sizes)
        return (
            f"{said}, which the grid does not hold: give --cudagraph-capture-sizes ending at {step} instead "
            "(a capture list is kept as given)"
        )
    above = grid.above(maximum)
    return f"give a size vLLM captures: {kept}" + (f" or {above}" if above is not None else "")


def lowered_capture_maximum(report: Report) -> list[Finding]:
    """RS069: the launch's capture maximum is off the analysed release's capture grid."""
    from argtrace.frameworks.vllm_capture_grid import capture_grid, releases
    from argtrace.rules import start_values as rules

    if report.framework.name != "vllm":
        return []
    if (report.sections.get("resolution") or {}).get("status") not in (None, "skipped"):
        return []  # the resolver ran the release's code: RS002 names the change it made
    name = next((n for n in MAXIMUM if as_int(_value(report, n)) is not None), None)
    if name is None or _graphs_off(report) or any(_value(report, n) is not None for n in CAPTURE_LISTS):
        return []
    if _value(report, "performance_mode") == "interactivity":
        return []
    maximum = as_int(_value(report, name))
    assert maximum is not None
    limit = as_int(_value(report, "max_num_batched_tokens"))
    if limit is not None and limit < maximum:
        return []
    version = report.framework.version or report.framework.analysed_with
    run = [v for v in releases() if capture_grid(v) is not None]
    grid = capture_grid(version) if version else None
    reference = grid or (capture_grid(run[-1]) if run else None)
    if reference is None:
        return []
    kept = reference.kept(maximum)
    if kept is None or kept == maximum:
        return []
    setting = report.setting(name)
    assert setting is not None
    at = setting.last_at
    flag = (
        "--max-cudagraph-capture-size"
        if name == MAXIMUM[0]
        else "--compilation-config's max_cudagraph_capture_size"
    )
    fix = _fix(report, reference, maximum, kept)
    if grid is not None:
        return [
            rules.RS069.finding(
                f"{flag} {maximum}: vllm {version} lowers it to {kept}, the largest CUDA graph capture size "
                f'not above it ({reference.function}, {reference.where}, logging "Truncating '
                f'max_cudagraph_capture_size to {kept}"); batches of {kept + 1}-{maximum} tokens run without '
                "CUDA graphs",
                at=at,
                setting=name,
                fix=fix,
            )
        ]
    return [
        rules.RS069.finding(
            f"{flag} {maximum}: vllm {run[-1]} (whose code was run) lowers it to {kept}, the largest CUDA "
            f"graph capture size not above it ({reference.function}, {reference.where}); vllm {version}'s "
            "own code was not run, so whether it does the same is assumed",
            at=at,
            setting=name,
            fix=fix,
            severity="info",
        )
    ]
