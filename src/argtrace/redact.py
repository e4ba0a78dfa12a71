"""Secrets never leave redacted form.

A secret is replaced by ``<redacted:HASH8>`` (the first 8 hex digits of its SHA-256), so two equal secrets
still compare equal in a report without either being shown. Every renderer and every layer that copies
environment values, argv words, log lines or endpoint payloads into a report goes through here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence

SECRET_NAME_PARTS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "AUTH")
# Names that contain a secret-looking part but hold no secret.
_NOT_SECRET_NAMES = frozenset({"KEYBOARD", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "HF_HUB_DISABLE_TOKEN"})
# Flags whose value is a credential, in either framework.
SECRET_FLAGS = frozenset(
    {
        "--api-key",
        "--admin-api-key",
        "--hf-token",
        "--ssl-keyfile-password",
        "--watchdog-token",
        "--token",
        "--password",
    }
)
_SECRET_DESTS = frozenset(f.lstrip("-").replace("-", "_") for f in SECRET_FLAGS)

# Values that look like tokens whatever their name: Hugging Face, OpenAI-style, GitHub, AWS, Slack, JWT.
_TOKEN_VALUE = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_\-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|AKIA[0-9A-Z]{16}|xox[baprs]-[A-Za-z0-9\-]{10,}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)"
)
# user:password@ in URLs.
_URL_PASSWORD = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^:/@\s]*):(?P<pw>[^@/\s]+)@")


def mask(secret: str) -> str:
    """``<redacted:HASH8>`` for a secret value; equal secrets give equal masks."""
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"<redacted:{digest}>"


def is_secret_name(name: str) -> bool:
    """True for variable names that hold credentials (``HF_TOKEN``, ``OPENAI_API_KEY``, ``AWS_*``).

    A name part must *end* with a secret word, so ``HF_TOKEN`` and ``MYTOKEN`` are secret but
    ``MAX_TOKENS`` and ``TOKENIZERS_PARALLELISM`` (numbers, flags) are not.
    """
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    if upper.startswith("AWS_") and upper not in {"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"}:
        return True
    parts = [p for p in re.split(r"[^A-Z0-9]+", upper) if p]
    return any(part.endswith(word) for part in parts for word in SECRET_NAME_PARTS)


def is_secret_flag(flag: str) -> bool:
    base = flag.split("=", 1)[0]
    return base in SECRET_FLAGS or base.lstrip("-").replace("-", "_") in _SECRET_DESTS


def redact_text(text: str) -> str:
    """Mask token-looking substrings and URL passwords inside free text (log lines, messages)."""
    text = _URL_PASSWORD.sub(lambda m: f"{m['scheme']}{m['user']}:{mask(m['pw'])}@", text)
    return _TOKEN_VALUE.sub(lambda m: mask(m.group(0)), text)


def redact_value(name: str | None, value: str | None) -> str | None:
    """A value as it may be shown: masked whole when its name marks it secret, else scrubbed inside."""
    if value is None:
        return None
    if name is not None and (is_secret_name(name) or is_secret_flag(name)) and value != "":
        return mask(value)
    return redact_text(value)


def redact_env(env: Mapping[str, str | None]) -> dict[str, str | None]:
    return {k: redact_value(k, v) for k, v in env.items()}


def redact_argv(argv: Sequence[str | None]) -> list[str | None]:
    """Mask the value of secret flags (``--api-key X`` and ``--api-key=X``) and token-looking words."""
    out: list[str | None] = []
    mask_next = False
    for word in argv:
        if word is None:
            out.append(None)
            mask_next = False
            continue
        if mask_next:
            out.append(mask(word))
            mask_next = False
            continue
        if word.startswith("-") and "=" in word and is_secret_flag(word):
            flag, value = word.split("=", 1)
            out.append(f"{flag}={mask(value)}")
            continue
        if word.startswith("-") and is_secret_flag(word):
            mask_next = True
        out.append(redact_text(word))
    return out


def secret_values(env: Mapping[str, str | None], argv: Iterable[str | None] = ()) -> set[str]:
    """The raw secret strings present in env/argv, for scrubbing them out of any other text."""
    found = {v for k, v in env.items() if v and is_secret_name(k)}
    words = list(argv)
    for i, word in enumerate(words):
        if word is None:
            continue
        if word.startswith("-") and "=" in word and is_secret_flag(word):
            found.add(word.split("=", 1)[1])
        elif word.startswith("-") and is_secret_flag(word) and i + 1 < len(words) and words[i + 1]:
            found.add(words[i + 1] or "")
    return {s for s in found if len(s) >= 4}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace every occurrence of the given secret strings (longest first), then token-looking text."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, mask(secret))
    return redact_text(text)


# Field names in endpoint payloads (``/server_info``) that hold credentials. Stricter than
# :func:`is_secret_name`: ``max_total_tokens`` or ``speculative_num_draft_tokens`` hold numbers, not secrets.
_SECRET_FIELD = re.compile(r"(?:^|_)(?:key|token|password|passwd|secret|credentials?)$", re.IGNORECASE)
_NOT_SECRET_FIELDS = frozenset({"ssl_keyfile", "ssl_certfile", "ssl_ca_certs", "sort_key", "cache_key"})


def is_secret_field(name: str) -> bool:
    """True for a payload field name holding a credential (``api_key``, ``hf_token``, ``watermark_key``)."""
    lowered = name.lower()
    if lowered in _NOT_SECRET_FIELDS:
        return False
    return bool(_SECRET_FIELD.search(lowered)) or lowered in _SECRET_DESTS or name.upper() in {
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
    }


def redact_payload(value: object, secrets: Iterable[str] = (), *, _name: str | None = None) -> object:
    """A JSON-like payload as it may be shown: secret fields masked, known secrets and tokens scrubbed.

    Dict keys decide (``api_key``, ``hf_token``: the string value is masked whole); every other string is
    scrubbed of the given secret strings and of token-looking text. A field named ``launch_command`` (a
    whole command line, SGLang 0.5.23) has its secret flags' values masked as in :func:`redact_argv`.
    """
    known = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))
    if isinstance(value, Mapping):
        return {k: redact_payload(v, known, _name=str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_payload(v, known, _name=_name) for v in value]
    if isinstance(value, str):
        if _name is not None and is_secret_field(_name) and value not in ("", "<redacted>"):
            return mask(value)
        if _name in ("launch_command", "cmdline", "command_line"):
            masked = redact_argv(value.split(" "))
            return scrub(" ".join(w or "" for w in masked), known)
        return scrub(value, known)
    return value
