"""Secrets a log holds, kept out of what the layer reports.

The values of a secret setting (``--api-key``, names such as ``hf_token``) in any of the log's dumps are
secrets (``layer.py`` collects them and remembers them for the whole run); :class:`_Redactor` masks such a
setting's value and scrubs every secret's text from messages, evidence and sections, unless
``--show-secrets``. A placeholder (``[REDACTED]``, ``***``) is not a secret.
"""

from __future__ import annotations

from argtrace.redact import is_secret_flag, mask, scrub

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PLACEHOLDERS = frozenset({"[REDACTED]", "***", "<redacted>", ""})


def _secret_dest(name: str) -> bool:
    return is_secret_flag("--" + name.replace("_", "-"))


class _Redactor:
    def __init__(self, secrets: set[str], show: bool) -> None:
        self.secrets = {s for s in secrets if s not in _PLACEHOLDERS}
        self.show = show

    def text(self, value: str) -> str:
        return value if self.show else scrub(value, self.secrets)

    def value(self, name: str, value: Any) -> Any:
        if self.show:
            return value
        if isinstance(value, str):
            if _secret_dest(name) and value not in _PLACEHOLDERS:
                return mask(value)
            return scrub(value, self.secrets)
        if isinstance(value, list):
            return [self.value(name, v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(str(k), v) for k, v in value.items()}
        return value
