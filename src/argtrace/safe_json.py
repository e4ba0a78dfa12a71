"""``json.loads`` for text a launch or a server supplied: nesting too deep is a decoding error, not a crash.

CPython's JSON decoder recurses once per ``[`` or ``{``; a value nested 10^4 deep raises ``RecursionError``,
which argparse (catching only ``TypeError``/``ValueError`` from a ``type=`` converter) and most callers do
not expect. Here it becomes the ``json.JSONDecodeError`` every caller already handles, so a flag's JSON
value nested that deep is reported as invalid JSON (as the server would fail on it) and the analysis goes on.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def loads(text: str | bytes, **kwargs: Any) -> Any:
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None
