"""``why`` on vLLM's "Truncating max_cudagraph_capture_size to M": the maximum given is off the capture grid.

``VllmConfig._set_cudagraph_sizes`` builds the CUDA graph capture list from a fixed grid up to the maximum
given (``--max-cudagraph-capture-size``, or ``--compilation-config``'s ``max_cudagraph_capture_size``) and
lowers the maximum to the list's last entry, with that warning. The site's test (``max_cudagraph_capture_size
!= valid_max_size``) says only to change the flag; the grid (``frameworks/vllm_capture_grid.py``, read by
running the release's method) says which sizes it keeps, so the fix names them (a DGX Spark launch passed
``${MAX_NUM_SEQS:-6}`` with three speculative tokens: lowered to 4, its 24-token decode step ran eager).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TRUNCATING = re.compile(r"Truncating max_cudagraph_capture_size to (\d+)")


def add_capture_grid_cause(groups: list[dict[str, Any]], text: str, version: str | None) -> None:
    """Say which capture sizes the release keeps on the first match when it is the truncation warning."""
    if not groups or groups[0].get("function") != "VllmConfig._set_cudagraph_sizes":
        return
    said = _TRUNCATING.search(text)
    if said is None:
        return
    from argtrace.frameworks.vllm_capture_grid import capture_grid, releases

    run = [v for v in releases() if capture_grid(v) is not None]
    ref = version if version and capture_grid(version) is not None else (run[-1] if run else None)
    grid = capture_grid(ref) if ref else None
    if grid is None:
        return
    kept = int(said.group(1))
    above = grid.above(kept)
    sizes = f"{kept}" + (f" or {above}" if above is not None else "")
    basis = f"vllm {ref}'s" + (
        "" if ref == version else " (whose code was run; the release that logged it may differ)"
    )
    groups[0]["fix"] = (
        f"the maximum given (--max-cudagraph-capture-size, or --compilation-config's "
        f"max_cudagraph_capture_size) is not a size vLLM captures: it was lowered to {kept}, the largest "
        f"size of {basis} capture grid below it ({grid.where}), and batches above {kept} tokens run without "
        f"CUDA graphs; give {sizes}, and with a draft cover max_num_seqs x (1 + num_speculative_tokens) "
        "tokens, the widest decode step"
    )
