"""``fleet --url URL``: one replica from a server's own endpoints, read as ``argtrace live`` reads them
(``layers/live.py`` ``fetch_live``: one deadline per request, at most five requests)."""

from __future__ import annotations

from argtrace.layers.fleet.analysis import Replica, Unanswered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Keys of SGLang's /server_info that are secrets or the scheduler's per-rank copy, never compared.
_SKIP = frozenset({"api_key", "admin_api_key", "internal_states"})


def read_url(url: str, *, api_key: str | None, insecure: bool, timeout: float) -> Replica | Unanswered:
    from argtrace.layers.live import _live_values, fetch_live
    from argtrace.redact import run_redactor

    snap = fetch_live(url, api_key=api_key, insecure=insecure, timeout=timeout)
    if snap.failure is not None:
        failure = snap.failure
        detail = f" ({failure.detail})" if failure.detail else ""
        return Unanswered(snap.url, "url", f"nothing answered: {failure.error}{detail}")
    if snap.unauthorized and snap.server_info is None:
        return Unanswered(
            snap.url,
            "url",
            f"{snap.unauthorized[0].path} answered {snap.unauthorized[0].status}: the server needs --api-key",
        )
    if snap.framework is None:
        return Unanswered(snap.url, "url", "answered, but not as an SGLang or vLLM server")
    values, where = _live_values(snap)
    for payload in (snap.server_info, snap.models):
        run_redactor().learn_data(payload)  # secrets it names are masked wherever the report prints them
    settings: dict[str, Any] = {}
    at: dict[str, str] = {}
    for name, (value, pointer) in values.items():
        if name in _SKIP:
            continue
        settings[name] = value
        at[name] = f"{snap.url}{where.get(name, '')}#{pointer}"
    if snap.framework == "vllm" and "model" not in settings and snap.models and snap.models.get("data"):
        card = snap.models["data"][0]
        if isinstance(card, dict) and (card.get("root") or card.get("id")):
            settings["model"] = card.get("root") or card.get("id")
            at["model"] = f"{snap.url}/v1/models#/data/0/root"
    if snap.version:
        # The release is a setting like the others: a replica restarted from an older image drifts here.
        settings["release"] = snap.version
        at["release"] = f"{snap.url}{'/version' if snap.framework == 'vllm' else where.get('version', '')}"
    return Replica(
        target=snap.url,
        kind="url",
        framework=snap.framework,
        settings=settings,
        at=at,
        source="live",
        version=snap.version,
    )
