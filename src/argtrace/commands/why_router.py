"""``why`` on a router's own lines: SGLang's router and model gateway, vLLM's router.

Their lines (``ERROR sglang_router_rs::routers::http::pd_router: ... Failed to select PD pair``) come from
Rust code, which the message index of SGLang's and vLLM's Python sources does not hold: a Python site that
shares a few words with them ("Encoder health check failed for", sglang#12630's "HTTP health check failed
for") is not where they were logged. Their meaning is in the log signatures (LG015), cited from the routers'
sources.
"""

from __future__ import annotations

from argtrace.layers.log.no_launch import ROUTER_LINE

# a line cut this short (the copy's last one) says too little to count against the rest
_CUT = 40


def router_text(text: str) -> bool:
    """True when the text is a router's lines: at least one holds a router's marker and every other is a cut
    stub; a Python traceback or a server's line among them makes it no router text."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    routed = [line for line in lines if ROUTER_LINE.search(line)]
    return bool(routed) and all(line in routed or len(line) <= _CUT for line in lines)
