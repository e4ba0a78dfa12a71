"""The process layer's names shared with the code it reads on first use (layers/process_unread.py): how
a framework's variables are spelt and how a value of the type a read site converts to is checked."""

from __future__ import annotations

from collections.abc import Mapping

# How close (difflib ratio) an unknown framework-prefixed name must be to one the release reads to be taken
# for a typo of it: SGLANG_ENABLE_SPEC_V3 / SGLANG_ENABLE_SPEC_V2 is 0.95, VLLM_ATTENTON_BACKEND /
# VLLM_ATTENTION_BACKEND 0.98; a script's own VLLM_ENABLE_CHUNKED_PROCESSING is 0.77 from its nearest
# (VLLM_ENABLE_V1_MULTIPROCESSING).
NEAR_MISS = 0.88
FRAMEWORK_PREFIXES: Mapping[str, tuple[str, ...]] = {"sglang": ("SGLANG_", "SGL_"), "vllm": ("VLLM_",)}
_BOOL_WORDS = frozenset({"1", "0", "true", "false", "yes", "no", "y", "n", "on", "off", ""})


def _value_problem(type_name: str | None, value: str | None) -> str | None:
    """Why a framework variable's value will not parse as the type its read site converts it to."""
    if value is None or not type_name:
        return None
    base = type_name.replace(" | None", "").replace("Optional[", "").rstrip("]").strip()
    text = value.strip()
    if base in ("int", "EnvInt", "EnvIntWithAlias"):
        try:
            int(text)
        except ValueError:
            return "an integer (int(...) fails on this value)"
    elif base in ("float", "EnvFloat"):
        try:
            float(text)
        except ValueError:
            return "a number (float(...) fails on this value)"
    elif base in ("bool", "EnvBool", "EnvBoolWithAlias") and text.lower() not in _BOOL_WORDS:
        return "a boolean (1/0, true/false): this value is not one"
    return None
