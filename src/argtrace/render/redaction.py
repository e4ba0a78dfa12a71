"""Secrets never leave redacted form: one pass over the canonical report dict before any output.

Layers keep raw values (they need them to compare equal secrets, and ``--show-secrets`` exists); this pass
finds the secret values by name (environment, secret flags, secret setting names), then masks them wherever
else they appear (messages, evidence, log lines, endpoint payloads) and masks token-looking text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argtrace.redact import is_secret_flag, is_secret_name, mask, redact_argv, scrub, secret_values

MIN_SCRUB_LENGTH = 6


def _setting_is_secret(setting: Mapping[str, Any]) -> bool:
    name = str(setting.get("name") or "")
    flag = str(setting.get("flag") or "")
    return is_secret_name(name) or (bool(flag) and is_secret_flag(flag))


def _collect_secrets(data: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    process = data.get("process") or {}
    found |= secret_values(process.get("env") or {}, process.get("argv") or [])
    for server in data.get("servers") or []:
        found |= secret_values({}, server.get("argv") or [])
    for setting in data.get("settings") or []:
        if _setting_is_secret(setting):
            for value in (setting.get("intended"), setting.get("effective")):
                if isinstance(value, str):
                    found.add(value)
            for obs in setting.get("history") or []:
                if isinstance(obs.get("value"), str):
                    found.add(obs["value"])
    # Substring scrubbing of very short values would mangle unrelated text ("4" inside "RS004"); values
    # found by name are masked whole wherever they stand, whatever their length.
    return {s for s in found if len(s) >= MIN_SCRUB_LENGTH}


def _walk(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, list):
        return [_walk(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _walk(v, secrets) for k, v in value.items()}
    return value


def _mask_if_str(value: Any) -> Any:
    return mask(value) if isinstance(value, str) and value else value


def redact_report_dict(data: dict[str, Any]) -> dict[str, Any]:
    secrets = _collect_secrets(data)
    out = dict(data)
    process = out.get("process")
    if process:
        process = dict(process)
        process["env"] = {
            k: (_mask_if_str(v) if is_secret_name(k) else v) for k, v in (process.get("env") or {}).items()
        }
        process["argv"] = redact_argv(process.get("argv") or [])
        out["process"] = process
    servers = []
    for server in out.get("servers") or []:
        server = dict(server)
        server["argv"] = redact_argv(server.get("argv") or [])
        servers.append(server)
    out["servers"] = servers
    settings = []
    for setting in out.get("settings") or []:
        if _setting_is_secret(setting):
            setting = dict(setting)
            setting["intended"] = _mask_if_str(setting.get("intended"))
            setting["effective"] = _mask_if_str(setting.get("effective"))
            setting["history"] = [
                {**o, "value": _mask_if_str(o.get("value"))} for o in setting.get("history") or []
            ]
        settings.append(setting)
    out["settings"] = settings
    return _walk(out, secrets)
