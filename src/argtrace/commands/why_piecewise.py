"""``why`` on a check inside SGLang's piecewise CUDA graph machinery: the switch that turns it on or off.

SGLang captures prefill/extend in piecewise CUDA graphs (PCG) through its own modules: the runner
(``model_executor/piecewise_cuda_graph_runner.py``) and the per-piece capture backends and context
(``compilation/cuda_piecewise_backend.py``, ``npu_``/``xpu_piecewise_backend.py``,
``compilation/piecewise_context_manager.py``). ``ModelRunner.init_piecewise_cuda_graphs`` builds the runner
only when the switch leaves PCG on (0.5.10.post1: ``if self.server_args.disable_piecewise_cuda_graph: ...
return``), so a raise there (sglang#16108: "PCG capture stream is not set" on Qwen3-VL) reads no server
argument, yet the way around it is the switch: SGLang's own capture failure says so ("To work around this
error, add --disable-piecewise-cuda-graph to your launch command", docs/advanced_features/
piecewise_cuda_graph.md). Which switch each release has comes from the generated schemas: opt-in
``--enable-piecewise-cuda-graph`` (0.5.3.post3-0.5.9), on by default with ``--disable-piecewise-cuda-graph``
(0.5.10.post1 on; deprecated for ``--cuda-graph-backend-prefill=disabled`` from 0.5.14), none once the
flags are gone. A check that already names a setting keeps it.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PCG_MODULE = re.compile(r"sglang/srt/(?:model_executor|compilation)/\w*piecewise\w*\.py$")
_ON = "--enable-piecewise-cuda-graph"
_OFF = "--disable-piecewise-cuda-graph"


@functools.cache
def _switch(version: str) -> tuple[str, str, str | None] | None:
    """(flag, dest, deprecation) of the release's PCG switch: the off switch where there is one (PCG on by
    default), else the opt-in one; None when the release has neither."""
    from argtrace.frameworks.schema import load_schema

    schema = load_schema("sglang", version)
    for flag in (_OFF, _ON):
        option = schema.option(flag)
        if option is not None:
            return flag, option.dest, option.deprecation_message
    return None


def add_piecewise_switch(groups: list[dict[str, Any]]) -> None:
    """Name the release's piecewise CUDA graph switch on the first match when it is a check of SGLang's PCG
    modules that names no setting."""
    if not groups:
        return
    first = groups[0]
    if first.get("settings") or first.get("framework") != "sglang":
        return
    if not _PCG_MODULE.search(str(first.get("file") or "")):
        return
    releases = [str(v["version"]) for v in first.get("versions") or () if isinstance(v, dict)]
    by_switch: dict[str, list[str]] = {}
    dests: dict[str, str] = {}
    replaced: dict[str, str] = {}
    for version in releases:
        found = _switch(version)
        if found is None:
            continue
        flag, dest, deprecation = found
        by_switch.setdefault(flag, []).append(version)
        dests.setdefault(flag, dest)  # the dest of the oldest release with the switch
        use = re.search(r"Use '([^']+)' instead", deprecation or "")
        if use:
            replaced[flag] = use.group(1)
    if not by_switch:
        return
    from argtrace.frameworks.entrypoints import describe_span

    said: list[str] = []
    if _ON in by_switch:
        said.append(
            f"sglang {describe_span('sglang', by_switch[_ON])} build it only with {_ON}: drop that flag"
        )
    if _OFF in by_switch:
        newer = f" (or {replaced[_OFF]} where it is deprecated)" if _OFF in replaced else ""
        said.append(
            f"sglang {describe_span('sglang', by_switch[_OFF])} build it by default: add {_OFF}{newer}"
        )
    first["settings"] = [
        {"name": dests[f], "flag": f, "feature_switch": True} for f in (_ON, _OFF) if f in dests
    ]
    fix = (
        "this check is in SGLang's piecewise CUDA graph capture, which the model runner builds only while "
        "piecewise CUDA graphs are on; to start without it: " + "; ".join(said)
    )
    first["fix"] = f"{first['fix']}; {fix}" if first.get("fix") else fix
