#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/kserve_hf_options.json: the options KServe's Hugging Face runtime
``python -m huggingfaceserver`` takes for itself, read from a kserve/kserve checkout by AST.

Its parser (``python/huggingfaceserver/huggingfaceserver/__main__.py``, module level) is built with
``parents=[kserve.model_server.parser]`` (``python/kserve/kserve/model_server.py``: ``--http_port``,
``--model_name``...), adds its own (``--model_id``, ``--backend``...), and with the vLLM backend
``maybe_add_vllm_cli_parser`` (``huggingfaceserver/vllm/utils.py``) adds vLLM's ``make_arg_parser``
options to the same parser; it parses with ``parse_known_args``. This script records the module-level
``parser.add_argument(...)`` calls of both files (those under ``if``/``else`` are the non-vLLM backends'
and are left out): option strings, dest, whether a value is taken, literal choices.

  python scripts/gen_kserve_hf_options.py /path/to/kserve-checkout COMMIT
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/kserve_hf_options.json"
FILES = ("python/kserve/kserve/model_server.py", "python/huggingfaceserver/huggingfaceserver/__main__.py")
_NO_VALUE = {"store_true", "store_false", "store_const", "version", "count"}


def _options(source: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for stmt in ast.parse(source).body:  # module level only (see the module's paragraph)
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "add_argument"
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "parser"
        ):
            continue
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        dest = kw.get("dest")
        action = kw.get("action")
        nargs = kw.get("nargs")
        choices = kw.get("choices")
        long = next((f for f in flags if f.startswith("--")), flags[0])
        out.append(
            {
                "flags": flags,
                "dest": dest.value if isinstance(dest, ast.Constant) else long.lstrip("-").replace("-", "_"),
                "nargs": 0
                if isinstance(action, ast.Constant) and action.value in _NO_VALUE
                else (nargs.value if isinstance(nargs, ast.Constant) else None),
                "choices": [c.value for c in choices.elts if isinstance(c, ast.Constant)]
                if isinstance(choices, (ast.List, ast.Tuple))
                else None,
            }
        )
    return out


def main() -> None:
    checkout, commit = Path(sys.argv[1]), sys.argv[2]
    options: list[dict[str, object]] = []
    for path in FILES:
        text = subprocess.run(
            ["git", "-C", str(checkout), "show", f"{commit}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        options += _options(text)
    data = {
        "source": f"kserve/kserve@{commit}: {', '.join(FILES)}",
        "allow_abbrev": False,
        "options": options,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT}: {len(options)} options")


if __name__ == "__main__":
    main()
