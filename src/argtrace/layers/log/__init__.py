"""The log layer: what an SGLang or vLLM server's own log says it saw, and where its start-up stopped.

``analyze_log(path, label, ...) -> LayerResult`` is the entry point (used by ``argtrace log`` and by
``argtrace check --log``). The file is streamed (gzip transparent) and only the lines around a few anchor
strings are parsed (``reader``); configuration dumps are read by a safe Python-repr parser (``pyrepr``);
launches, timelines and errors are built in ``analyze``; error signatures live in
``argtrace/data/error_signatures.json`` (``signatures``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import LayerResult

__all__ = ["analyze_log"]


def analyze_log(*args: Any, **kwargs: Any) -> LayerResult:
    from argtrace.layers.log.layer import analyze_log as _analyze

    return _analyze(*args, **kwargs)
