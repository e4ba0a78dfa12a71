"""``why`` on vLLM's refusals that follow from a data parallel start's load-balancing mode, which vLLM infers
from flags the refusal does not name (layers/dp_mode.py, PA054, says the same of a launch):

- the head's "Remote engine N must not use --headless in external or hybrid dp lb mode" and "... must use
  --headless unless in external or hybrid dp lb mode" (vllm/v1/engine/utils.py ``wait_for_engine_startup``):
  the site's test reads ``data_parallel_hybrid_lb``/``data_parallel_external_lb``, which the head's
  ``EngineArgs.create_engine_config`` sets from ``--data-parallel-start-rank`` on a start that is not
  ``--headless`` (rank 0 too from the release whose test is ``is not None``: gpustack/gpustack#6221 on
  0.29.0) and turns external with ``--data-parallel-size-local 1``; the site's own fix ("change --headless,
  --data-parallel-external-lb, --data-parallel-hybrid-lb") misses the flag the user wrote;
- "Non-MoE models do not support external data parallel mode" (``create_engine_config``): external mode comes
  from ``--data-parallel-rank`` or ``--data-parallel-external-lb`` and, by the same inference, from a start
  rank with one local rank (vllm-project/vllm-ascend#11863); the site's fix names ``--data-parallel-size``.

Which releases infer what is frameworks/data/vllm_dp_launch.json (scripts/gen_vllm_dp_launch.py).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_REMOTE = re.compile(r"Remote engine (\d+) must (not )?use --headless")
_NON_MOE = "Non-MoE models do not support external data parallel mode"


def _inference(version: str | None) -> tuple[str, str]:
    """(the release the table speaks for, how its head infers the mode from the start rank)."""
    from argtrace.frameworks.schema import nearest_bundled
    from argtrace.layers.dp_mode import release_facts, releases_read

    read = releases_read()
    ref = (nearest_bundled("vllm", version, read) if version else None) or (read[-1] if read else "")
    form = (release_facts(ref) or {}).get("hybrid_from_start_rank") if ref else None
    if form == "set":
        how = "any --data-parallel-start-rank, 0 too"
    elif form == "nonzero":
        how = "a --data-parallel-start-rank above 0"
    else:
        return ref, ""
    return ref, (
        f"on vllm {ref}{_standing(ref, version)} a start that is not --headless is taken "
        f"for a hybrid load-balanced node by {how}, switched to external load balancing with "
        "--data-parallel-size-local 1"
    )


def _standing(ref: str, version: str | None) -> str:
    if ref == version:
        return ""
    return " (standing in)" if version else " (the newest read; no release named)"


def add_dp_mode_cause(groups: list[dict[str, Any]], text: str, version: str | None) -> None:
    """Name the flags that set the head's load-balancing mode on the first match, when it is one of these
    refusals."""
    if not groups:
        return
    function = str(groups[0].get("function") or "")
    remote = _REMOTE.search(text)
    if remote is not None and function.endswith("wait_for_engine_startup"):
        _, how = _inference(version)
        if not how:
            return
        if remote.group(2):  # "must not use --headless": the head is hybrid or external
            groups[0]["fix"] = (
                "the head runs hybrid or external load balancing, in which every node serves its own API; "
                "its mode is set by --data-parallel-hybrid-lb, --data-parallel-external-lb or "
                f"--data-parallel-rank, or inferred: {how}. Remove those from the head (internal load "
                "balancing: one API server, --headless workers), or start engine "
                f"{remote.group(1)}'s node without --headless"
            )
        else:
            groups[0]["fix"] = (
                f"the head runs internal load balancing, whose remote engines must be --headless: start "
                f"engine {remote.group(1)}'s node with --headless, or make every node serve its own API "
                f"(hybrid: --data-parallel-hybrid-lb; {how})"
            )
        return
    if _NON_MOE in text and function.endswith("create_engine_config"):
        _, how = _inference(version)
        groups[0]["fix"] = (
            "the model is not a mixture of experts, and external data parallel mode is set by "
            "--data-parallel-rank or --data-parallel-external-lb"
            + (f" ({how})" if how else "")
            + ": launch independent instances without --data-parallel-* arguments and balance them outside, "
            "or serve all ranks from one start (internal load balancing)"
        )
