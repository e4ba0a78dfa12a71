#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/feature_pairs.json: SGLang and vLLM options that set the same feature
under different names, read from the two frameworks' real parsers (the bundled schemas), never typed.

An option is its dest across every bundled release of its framework (its long option strings, the
releases that register it, its help text from the newest release whose help is not empty: vLLM 0.10 and
later dump an empty help for most frontend options). Two options of the two frameworks are a pair when

* they do not share a dest (a shared dest is already the same setting: ``frameworks/equivalents.py``),
* they take the same kind of value (a switch, one value, a list: nargs and action in the newest release),
* their names begin with the same word once a leading ``enable``/``disable``/``max``/``min``/``num``/``use``
  is set aside (``lora`` in ``lora_paths``/``lora_modules``, ``mamba`` in ``mamba_ssm_dtype``/
  ``mamba_ssm_cache_dtype``), by ``releases._words_match``, and neither turns off what the other turns on
  (``enable``/``disable``),
* each is the other's best match among such options by the cosine of their TF-IDF vectors (help words,
  name words counted twice), that cosine is at least ``THRESHOLD`` and it exceeds the next best candidate
  of either by ``MARGIN``.

The cosine and margin are kept in the file: ``why`` names a pair as a hint read from the two parsers' names
and help texts, never as a verified equivalent (docs/frameworks.md gives the share of right pairs, checked
by hand). ``--check`` regenerates and compares.

    python scripts/gen_feature_pairs.py
    python scripts/gen_feature_pairs.py --check
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import VALUELESS_ACTIONS, bundled_versions, load_schema, version_key  # noqa: E402
from argtrace.layers.parser.releases import _words, _words_match  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "feature_pairs.json"
THRESHOLD = 0.4
MARGIN = 0.2
LEADING = frozenset({"enable", "disable", "max", "min", "num", "use"})
# words of help texts that say nothing about a feature
STOP = frozenset(
    "the a an of to in and or for is be if this that with on by as it its are not when use used from will "
    "which can default set at only".split()
)


def options_of(framework: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for version in sorted(bundled_versions(framework, include_user=False), key=version_key):
        schema = load_schema(framework, version)
        for spec in schema.options:
            longs = [s for s in spec.option_strings if s.startswith("--")]
            if not longs or spec.dest == "help":
                continue
            entry = out.setdefault(spec.dest, {"flags": [], "releases": [], "help": "", "kind": ""})
            entry["kind"] = _kind(spec)
            entry["flags"] += [s for s in longs if s not in entry["flags"]]
            if version not in entry["releases"]:
                entry["releases"].append(version)
            if (spec.help or "").strip():
                entry["help"] = " ".join((spec.help or "").split())
    return out


def _kind(spec: Any) -> str:
    if spec.nargs == 0 or spec.action in VALUELESS_ACTIONS:
        return "switch"
    if (
        spec.nargs in ("*", "+")
        or (isinstance(spec.nargs, int) and spec.nargs > 1)
        or "append" in str(spec.action)
    ):
        return "list"
    return "value"


def tokens(dest: str, help_text: str) -> list[str]:
    words = [w for w in re.findall(r"[a-z][a-z0-9]+", help_text.lower()) if w not in STOP]
    return words + _words(dest) * 2


def pairs() -> list[dict[str, Any]]:
    sg, vl = options_of("sglang"), options_of("vllm")
    docs = {("sglang", d): tokens(d, e["help"]) for d, e in sg.items()}
    docs.update({("vllm", d): tokens(d, e["help"]) for d, e in vl.items()})
    df = collections.Counter(w for t in docs.values() for w in set(t))
    n = len(docs)

    def vector(words: list[str]) -> dict[str, float]:
        counts = collections.Counter(words)
        v = {w: c * math.log(n / df[w]) for w, c in counts.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    vectors = {k: vector(t) for k, t in docs.items()}

    def head(dest: str) -> str:
        words = _words(dest)
        while len(words) > 1 and words[0] in LEADING:
            words = words[1:]
        return words[0] if words else dest

    def same_polarity(a: str, b: str) -> bool:
        return {"enable", "disable"} & set(_words(a)) == {"enable", "disable"} & set(_words(b))

    def same_head(a: str, b: str) -> bool:
        return _words_match(head(a), head(b))

    def cosine(a: tuple[str, str], b: tuple[str, str]) -> float:
        va, vb = vectors[a], vectors[b]
        return sum(x * vb.get(w, 0.0) for w, x in va.items())

    shared = set(sg) & set(vl)
    best_s: dict[str, tuple[float, str]] = {}
    best_v: dict[str, tuple[float, str]] = {}
    second_s: dict[str, float] = {}
    second_v: dict[str, float] = {}
    for sd in sorted(set(sg) - shared):
        for vd in sorted(set(vl) - shared):
            if sg[sd]["kind"] != vl[vd]["kind"] or not same_head(sd, vd) or not same_polarity(sd, vd):
                continue
            c = cosine(("sglang", sd), ("vllm", vd))
            if c > best_s.get(sd, (0.0, ""))[0]:
                second_s[sd] = best_s.get(sd, (0.0, ""))[0]
                best_s[sd] = (c, vd)
            else:
                second_s[sd] = max(second_s.get(sd, 0.0), c)
            if c > best_v.get(vd, (0.0, ""))[0]:
                second_v[vd] = best_v.get(vd, (0.0, ""))[0]
                best_v[vd] = (c, sd)
            else:
                second_v[vd] = max(second_v.get(vd, 0.0), c)
    out = []
    for sd, (c, vd) in sorted(best_s.items()):
        margin = c - max(second_s.get(sd, 0.0), second_v.get(vd, 0.0))
        if c < THRESHOLD or margin < MARGIN or best_v.get(vd, (0.0, ""))[1] != sd:
            continue
        out.append(
            {
                "cosine": round(c, 3),
                "margin": round(margin, 3),
                "sglang": {
                    "dest": sd,
                    "flags": sg[sd]["flags"],
                    "help": sg[sd]["help"][:300],
                    "releases": [sg[sd]["releases"][0], sg[sd]["releases"][-1]],
                },
                "vllm": {
                    "dest": vd,
                    "flags": vl[vd]["flags"],
                    "help": vl[vd]["help"][:300],
                    "releases": [vl[vd]["releases"][0], vl[vd]["releases"][-1]],
                },
            }
        )
    return sorted(out, key=lambda p: (-p["cosine"], p["sglang"]["dest"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    data = {
        "generated_by": "scripts/gen_feature_pairs.py",
        "threshold": THRESHOLD,
        "releases": {fw: list(bundled_versions(fw, include_user=False)) for fw in ("sglang", "vllm")},
        "pairs": pairs(),
    }
    text = json.dumps(data, indent=1) + "\n"
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print("equal" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}: {len(data['pairs'])} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
