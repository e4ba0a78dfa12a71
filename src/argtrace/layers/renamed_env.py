"""Deprecated environment variables whose replacement means the opposite (``SGL_DISABLE_X`` ->
``SGLANG_ENABLE_X``).

SGLang maps an old name onto its replacement by copying the value as it is: ``_print_deprecated_env(new,
old)`` does ``os.environ[new_name] = os.environ[old_name]`` (``sglang/srt/environ.py:539-544`` in
0.5.10.post1; the schemas' ``deprecated``/``replacement`` entries are read from those calls,
``resolver/ast_index.py``). When
the two names differ by ENABLE/DISABLE, ``SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1`` therefore becomes
``SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=1``: the check the user wanted off is on, and ``=0`` turns it off.
Advice for such a rename must give the new name the *opposite* value.
"""

from __future__ import annotations

# SGLang's EnvBool.parse (sglang/srt/environ.py, 0.5.10.post1 :121-124): these words, case-insensitive.
TRUE_WORDS = ("true", "1", "yes", "y")
FALSE_WORDS = ("false", "0", "no", "n")
_FLIP = {"ENABLE": "DISABLE", "DISABLE": "ENABLE"}


def _core(name: str) -> list[str]:
    for prefix in ("SGLANG_", "SGL_", "VLLM_"):
        if name.startswith(prefix):
            return name[len(prefix) :].split("_")
    return name.split("_")


def is_inverted(old: str, new: str) -> bool:
    """The names are the same but for one ENABLE <-> DISABLE word (the framework prefix aside)."""
    a, b = _core(old), _core(new)
    if len(a) != len(b):
        return False
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diff) == 1 and _FLIP.get(diff[0][0]) == diff[0][1]


def as_bool(value: str | None) -> bool | None:
    if value is None:
        return None
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def inverted_advice(old: str, new: str, value: str | None, label: str, copies: bool) -> tuple[str, str]:
    """(message, fix) for ``old=value`` when ``old`` is deprecated for ``new`` of the opposite sense.
    ``copies``: the release copies the old value into the new name (SGLang's ``_print_deprecated_env``)."""
    meant = as_bool(value)
    message = f"{old} is deprecated in {label}; it now reads {new}, which means the opposite"
    if copies:
        message += ", and it copies the value as it is (sglang/srt/environ.py _print_deprecated_env)"
        if meant is not None:
            message += (
                f": {old}={value} becomes {new}={value} ({'on' if meant else 'off'}), the opposite of what "
                "it asks for"
            )
    if meant is None:
        return message, f"use {new} with the opposite value ({new}=0 to disable, {new}=1 to enable)"
    return message, f"write {new}={'0' if meant else '1'} instead of {old}={value}"
