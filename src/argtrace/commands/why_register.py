"""``why`` on transformers' refusal to register a class twice (``'<class 'sglang.srt.configs.
qwen2_5_vl_config.Qwen2_5_VLConfig'>' is already used by a Transformers model.``, sglang#4607): SGLang and
vLLM register their own configuration classes with transformers' Auto classes at import
(``AutoConfig.register``, ``AutoProcessor.register``); transformers refuses a name it already has. When the
class the text names is the framework's own (its module path starts with ``sglang.`` or ``vllm.``), the
installed transformers already ships that class: it is newer than the framework release was made for. The
transformers site's own fix ("make the condition false (key in self._mapping and (not exist_ok))") says
nothing a user can change; this module gives the site that cause.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CLASS = re.compile(r"<class '(?P<cls>(?P<fw>sglang|vllm)\.[\w.]+)'>")
_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


def add_registration_cause(groups: list[dict[str, Any]], text: str) -> None:
    """Give transformers' "is already used by a Transformers ..." site the cause when the class the text
    names is the framework's own."""
    if not groups or "is already used by a Transformers" not in str(groups[0].get("message") or ""):
        return
    m = _CLASS.search(text)
    if m is None:
        return
    fw, cls = _NAME[m.group("fw")], m.group("cls")
    groups[0]["fix"] = (
        f"{fw} registers its own {cls.rsplit('.', 1)[-1]} ({cls}) with transformers' Auto classes, and the "
        f"installed transformers already has a class of that name: transformers is newer than this {fw} "
        f"release was made for: install the transformers release {fw} requires (its package pins it), or a "
        f"{fw} release made for this transformers; no server setting changes it"
    )
