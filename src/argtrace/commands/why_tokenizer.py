"""``why`` on transformers' refusal of a tokenizer class it does not have (``Tokenizer class TokenizersBackend
does not exist or is not currently imported.``, LlamaFactory#10310): AutoTokenizer reads the class named by
the checkpoint's tokenizer_config.json (``tokenizer_class``); a class only a later transformers maps to (5.x
writes ``TokenizersBackend`` when it saves a tokenizer) means the tokenizer was saved by a newer transformers
than the one the server runs with. Which releases know a class is generated from the wheels
(``scripts/gen_model_types.py``: ``TOKENIZER_MAPPING_NAMES`` of ``models/auto/tokenization_auto.py``, in
``data/transformers_model_types.json``). transformers' own site says "make the condition false
(tokenizer_class is None)", which nothing a user changes; this module gives that site the cause.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CLASS = re.compile(r"Tokenizer class (?P<cls>[A-Za-z_]\w*) does not exist or is not currently imported")


def tokenizer_class_known_in(name: str) -> list[str]:
    """The indexed transformers releases whose AutoTokenizer maps a model type to the class ``name``."""
    from argtrace.commands.why_modeltype import _table

    table = _table()
    releases = list(table.get("releases") or [])
    return [releases[i] for i in (table.get("tokenizer_classes") or {}).get(name, [])]


def add_tokenizer_class_cause(groups: list[dict[str, Any]], text: str) -> None:
    """Give transformers' "Tokenizer class X does not exist" site the releases that know X: a tokenizer saved
    by a later transformers, or (no indexed release knows it) a class of the checkpoint's own code."""
    if not groups or "does not exist or is not currently imported" not in str(groups[0].get("message") or ""):
        return
    m = _CLASS.search(text)
    if m is None:
        return
    from argtrace.commands.why_modeltype import _table

    cls, releases = m.group("cls"), list(_table().get("releases") or [])
    known = tokenizer_class_known_in(cls)
    if known and known[0] != releases[0]:
        before = releases[releases.index(known[0]) - 1]
        groups[0]["fix"] = (
            f"{cls} is a tokenizer class the indexed transformers {known[0]}"
            f"{'' if len(known) == 1 else '-' + known[-1]} know and {before} does not: the checkpoint's "
            "tokenizer_config.json was written by a newer transformers than the one the server runs with: "
            f"install a transformers that has it ({known[0]} does) within what the server release allows, "
            "or set tokenizer_class in tokenizer_config.json to a class this transformers has; no server "
            "setting changes it"
        )
    elif not known:
        groups[0]["fix"] = (
            f"no indexed transformers ({releases[0]}-{releases[-1]}) maps a model type to {cls}: a class "
            "the checkpoint's own code defines (--trust-remote-code when the repository ships it, auto_map "
            "in "
            "tokenizer_config.json) or a name misspelt in tokenizer_config.json"
        )
