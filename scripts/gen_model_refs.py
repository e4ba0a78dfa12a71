#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/model_refs.json: the GGUF model references each bundled SGLang and
vLLM release's loader takes, read from the releases' own code through the message index
(``frameworks/data/messages/<framework>.json.gz``, which scripts/gen_messages.py built from the wheels).

What the loaders say, per release:

- vLLM 0.5.5-0.9.2 ``GGUFModelLoader._prepare_weights``: ``if not os.path.isfile(model_name_or_path):
  raise ValueError(f"{model_name_or_path} is not a file.")``: a local ``.gguf`` file only.
- vLLM 0.10.2 on: the same function raises ``"Unrecognised GGUF reference: ... (expected local file, raw
  URL, <repo_id>/<filename>.gguf, or <repo_id>:<quant_type>)"``; the parenthesis lists what it takes
  (0.10.2-0.11.2 without ``<repo_id>:<quant_type>``, 0.17.1 on without ``raw URL``).
- SGLang ``GGUFModelLoader._prepare_weights``: ``"... is not a file."`` (a local file), and from 0.5.18 on
  ``resolve_hf_gguf_reference`` resolves Hub references before it: ``"{model} contains N .gguf files; name
  the one to serve"`` (a repo id naming its one file), from 0.5.19 ``"No file matching quant type ... in
  {repo_id}"`` (``<repo_id>:<quant_type>``) and ``"Pass the full owner/repo/path/file"``
  (``<repo_id>/<filename>.gguf``).

A release with none of these sites (vLLM 0.24.0 on indexes no GGUF loader) is left out: nothing is claimed
for it. Forms: ``local_file``, ``raw_url``, ``repo_file`` (``<repo_id>/<filename>.gguf``), ``repo_quant``
(``<repo_id>:<quant_type>``), ``repo`` (a repo id holding one ``.gguf``).

The quant types a ``<repo_id>:<quant_type>`` names are the ``gguf`` package's ``GGMLQuantizationType``
members (vLLM's ``split_remote_gguf`` checks the name against them; Q4_K_M is Q4_K with a size suffix,
UD-Q4_K_XL a prefixed one), read by AST from the package's ``gguf/constants.py``.

  python scripts/gen_model_refs.py --gguf SITE/gguf/constants.py   # writes the file
  python scripts/gen_model_refs.py --check    # exit 1 when the file is not what the index gives
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = ROOT / "src/argtrace/frameworks/data/messages"
OUT = ROOT / "src/argtrace/frameworks/data/model_refs.json"

# the words of a vLLM "expected ..." list, as the forms they name
_EXPECTED = {
    "local file": "local_file",
    "raw URL": "raw_url",
    "<repo_id>/<filename>.gguf": "repo_file",
    "<repo_id>:<quant_type>": "repo_quant",
}


def _text(parts: list[object]) -> str:
    """A message's text with its placeholders as ``{name}`` (an optional piece, a dict, as ``{...}``)."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, list) and part:
            out.append("{" + str(part[0]) + "}")
        else:
            out.append("{...}")
    return "".join(out)


def _forms(site: dict[str, object]) -> set[str]:
    """The GGUF reference forms one loader site says its release takes (empty: not a loader site)."""
    text = _text(site["p"])  # type: ignore[arg-type]
    fn = str(site["fn"])
    if fn == "GGUFModelLoader._prepare_weights" and text.endswith(" is not a file."):
        return {"local_file"}
    if fn == "GGUFModelLoader._prepare_weights" and text.startswith("Unrecognised GGUF reference:"):
        inside = text[text.index("(expected ") + len("(expected ") : text.rindex(")")]
        words = [w.strip() for w in inside.replace(", or ", ", ").replace(" or ", ", ").split(",")]
        return {_EXPECTED[w] for w in words if w in _EXPECTED}
    if fn == "resolve_hf_gguf_reference":
        forms = {"local_file"}
        if "name the one to serve" in text:
            forms.add("repo")
        if "No file matching quant type" in text:
            forms.update({"repo", "repo_quant"})
        if "Pass the full owner/repo/path/file" in text:
            forms.update({"repo", "repo_quant", "repo_file"})
        return forms
    return set()


def quant_types(constants: Path) -> dict[str, object]:
    """``GGMLQuantizationType``'s member names in gguf's ``constants.py``, with the gguf release (the
    ``gguf-X.dist-info`` beside the package)."""
    tree = ast.parse(constants.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "GGMLQuantizationType":
            names = [
                t.id
                for n in node.body
                if isinstance(n, ast.Assign)
                for t in n.targets
                if isinstance(t, ast.Name)
            ]
    infos = sorted(p.name for p in constants.parent.parent.glob("gguf-*.dist-info"))
    release = infos[-1][len("gguf-") : -len(".dist-info")] if infos else None
    return {"gguf": release, "names": names}


def generate(gguf: dict[str, object]) -> dict[str, object]:
    frameworks: dict[str, object] = {}
    for framework in ("sglang", "vllm"):
        store = json.loads(gzip.open(MESSAGES / f"{framework}.json.gz").read())
        per_release: dict[str, dict[str, object]] = {}
        for site in store["sites"]:
            forms = _forms(site)
            if not forms:
                continue
            for release, lines in site["at"].items():
                entry = per_release.setdefault(release, {"gguf": set(), "sites": []})
                entry["gguf"] |= forms  # type: ignore[operator]
                entry["sites"].append(  # type: ignore[union-attr]
                    {"file": site["f"], "function": site["fn"], "line": lines[0], "message": _text(site["p"])}
                )
        order = list(store["releases"])
        frameworks[framework] = {
            release: {
                "gguf": sorted(per_release[release]["gguf"]),  # type: ignore[arg-type]
                "sites": sorted(per_release[release]["sites"], key=lambda s: (s["file"], s["line"])),  # type: ignore[arg-type,index]
                "wheel": store["releases"][release]["wheel"],
            }
            for release in order
            if release in per_release
        }
    return {
        "format": 1,
        "generated_by": "scripts/gen_model_refs.py",
        "from": "frameworks/data/messages/{sglang,vllm}.json.gz (scripts/gen_messages.py, the "
        "releases' wheels)",
        "frameworks": frameworks,
        "gguf_quant_types": gguf,
    }


def main() -> int:
    args = sys.argv[1:]
    if "--gguf" in args:
        gguf = quant_types(Path(args[args.index("--gguf") + 1]))
    else:  # --check, or a run without the package: keep the quant types read before
        gguf = json.loads(OUT.read_text(encoding="utf-8"))["gguf_quant_types"]
    text = json.dumps(generate(gguf), indent=1, ensure_ascii=False) + "\n"
    if "--check" in args:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(
            "model_refs.json is current" if same else "model_refs.json differs: run scripts/gen_model_refs.py"
        )
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
