"""``why`` on Python's KeyError of a model type (``KeyError: 'qwen3'``, sglang#6732's ``KeyError:
'llava_qwen'``): transformers' AutoConfig looks config.json's ``model_type`` up in ``CONFIG_MAPPING`` and,
before its own "does not recognize this architecture" message, raised the bare KeyError with the type.

The model types each transformers release knows are generated from the wheels
(``data/transformers_model_types.json``, scripts/gen_model_types.py). A key that a later release knows and the
first indexed one does not says the installed transformers is older than the checkpoint's model; a key no
indexed release knows whose first part is a known type (``llava_qwen``: ``llava``) is a variant of the family
a checkpoint's own code defines (``--trust-remote-code`` with that code, or the package that registers it). A
key that is no type and whose first part is none (``rope_type``) is not read: any dictionary raises KeyError.
The text never says that AutoConfig looked the key up, so both readings say they rest on the key's spelling.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEY = re.compile(r"\bKeyError:?\s*['\"](?P<key>[a-z][a-z0-9_-]{1,60})['\"]")
_RESTS = "the key's spelling (the text does not say that transformers' AutoConfig looked it up)"


@functools.cache
def _table() -> dict[str, Any]:
    path = Path(__file__).resolve().parents[1] / "data" / "transformers_model_types.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}-{releases[-1]}"


def model_type_key(text: str) -> dict[str, Any] | None:
    """What a KeyError of a model type says, by the generated table; None when the key is no model type's
    and no variant of one."""
    m = _KEY.search(text)
    table = _table()
    if m is None or not table:
        return None
    key, releases, types = m.group("key"), list(table["releases"]), table["model_types"]
    known = [releases[i] for i in types.get(key, [])]
    found: dict[str, Any] = {"key": key, "evidence": m.group(0), "known_in": known, "rests_on": _RESTS}
    if known and known[0] != releases[0]:
        before = releases[releases.index(known[0]) - 1]
        found["meaning"] = (
            f"Python's KeyError of {key!r}, a model type the indexed transformers {_span(known)} know and "
            f"{before} does not: AutoConfig's lookup of config.json's model_type fails in an older "
            "transformers"
        )
        found["fix"] = (
            f"install a transformers that knows it ({known[0]} does; the releases between {before} and "
            f"{known[0]} are not indexed), within what the SGLang or vLLM release allows (a newer server "
            "release brings it)"
        )
        return found
    family = key.split("_", 1)[0]
    if not known and "_" in key and family in types:
        found["meaning"] = (
            f"Python's KeyError of {key!r}: no transformers release indexed ({_span(releases)}) knows this "
            f"model type, a variant of its {family!r} family: a checkpoint whose config.json names a type "
            "its own code defines"
        )
        found["fix"] = (
            "load the model with the code that defines the type: --trust-remote-code when the model "
            "repository ships it (auto_map in config.json), or install the package that registers it; no "
            "other server setting makes transformers know it"
        )
        return found
    return None


def render_model_type(section: Mapping[str, Any]) -> list[str]:
    found = section.get("model_type")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}", f"  rests on: {found['rests_on']}"]
