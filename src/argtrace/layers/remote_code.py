"""Whether resolving a launch would run the model's own Python code, which argtrace never does.

A resolution starts the framework's parser and config builders on the model's directory. With
``--trust-remote-code`` (or a ``--config`` file that may set it), transformers imports the classes the
model's ``auto_map`` names: ``configuration_*.py`` / ``modeling_*.py`` beside the ``config.json``, or code
from another repository in the Hugging Face cache. The probe of session 13 saw a ``configuration_evil.py``
write its marker during ``check``, ``lint`` and ``fix`` of SGLang and vLLM launches. Such a launch is not
resolved; :func:`remote_code_reason` says why (``RS004``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from argtrace import localfs, safe_json

# the files transformers reads an ``auto_map`` from (config, tokenizer, processors, image processors)
_MAPPED_JSON = ("config.json", "tokenizer_config.json", "processor_config.json", "preprocessor_config.json")
MAX_JSON_BYTES = 4 * 1024 * 1024  # a tokenizer_config.json with an inlined template is ~100 KB


def _may_trust(argv: Sequence[str]) -> bool:
    """A word that can turn remote code on: the flag in any spelling argparse accepts (an abbreviation
    such as ``--trust``, underscores in vLLM) or a ``--config`` file argtrace does not read here."""
    for word in argv:
        flag = word.split("=", 1)[0].replace("_", "-")
        if flag.startswith("--trust") or flag == "--config":
            return True
    return False


def _auto_map(path: Path) -> bool:
    try:
        if not localfs.is_file(path) or path.stat().st_size > MAX_JSON_BYTES:
            return False
        data = safe_json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("auto_map"))


def remote_code_reason(argv: Sequence[str], model_dir: Path) -> str | None:
    """Why resolving ``argv`` on ``model_dir`` would run the model's code; None when it would not."""
    if not _may_trust(argv):
        return None
    mapped = [name for name in _MAPPED_JSON if _auto_map(model_dir / name)]
    try:
        code = sorted(p.name for p in model_dir.iterdir() if p.suffix == ".py" and localfs.is_file(p))[:3]
    except OSError:
        code = []
    if not mapped and not code:
        return None
    what = (
        f"auto_map in {', '.join(mapped)}"
        if mapped
        else f"Python files beside config.json ({', '.join(code)})"
    )
    return (
        f"the model's own code would run ({what}, with --trust-remote-code or a --config file that may set "
        "it); argtrace never runs code a launch names"
    )
