"""The bundled assert indexes (``frameworks/data/asserts/<framework>.json.gz``, written by
``scripts/gen_messages.py --asserts`` from the real wheels) and finding the assert a report quotes.

File shape (format 1)::

    {"format": 1, "framework": "vllm", "generated_by": "scripts/gen_messages.py --asserts",
     "releases": {"0.33.0": {"wheel": "...whl", "sha256": "...", "sites": 8602}, ...},
     "sites": [{"f": "vllm/model_executor/models/llama.py", "fn": "LlamaAttention.__init__",
                "c": "self.total_num_kv_heads % tp_size == 0", "w": ["self.total_num_kv_heads >= tp_size"],
                "r": ["self.total_num_kv_heads"], "a": {"tp_size": "get_tensor_model_parallel_world_size()"},
                "at": {"0.32.0": [151], "0.33.0": [151]}}, ...]}

The fields are described in :mod:`argtrace.resolver.assert_index`. A report names an assert three ways: the
traceback's last frame (file, line, function: the release whose assert sits at that line is the one that
ran), the statement shown under that frame, or the condition alone (an issue title). Stdlib only.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ASSERT_DIR = Path(__file__).resolve().parent.parent / "frameworks" / "data" / "asserts"
FORMAT = 1
FRAMEWORKS = ("sglang", "vllm")


@dataclass(frozen=True)
class AssertSite:
    """One assert of the index and the releases it is in (its lines in each)."""

    framework: str
    file: str
    function: str
    condition: str
    when: tuple[str, ...]
    reads: tuple[str, ...]
    assigned: tuple[tuple[str, str], ...]  # (local name, the expression the function assigned to it)
    message: str | None  # the message expression of an assert that prints values only
    at: dict[str, list[int]] = field(hash=False, compare=False)

    def lines(self, release: str) -> list[int]:
        return self.at.get(release, [])


@functools.cache
def load(framework: str) -> dict[str, Any] | None:
    path = ASSERT_DIR / f"{framework}.json.gz"
    try:
        data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError):
        return None
    return data if data.get("format") == FORMAT else None


@functools.cache
def sites(framework: str) -> tuple[AssertSite, ...]:
    data = load(framework)
    if data is None:
        return ()
    return tuple(
        AssertSite(
            framework,
            s["f"],
            s["fn"],
            s["c"],
            tuple(s.get("w") or ()),
            tuple(s.get("r") or ()),
            tuple((s.get("a") or {}).items()),
            s.get("m"),
            s["at"],
        )
        for s in data["sites"]
    )


def indexed_releases(framework: str) -> list[str]:
    data = load(framework)
    return list(data["releases"]) if data else []


def _frameworks(framework: str | None) -> Iterable[str]:
    return (framework,) if framework else FRAMEWORKS


def _same_function(site_fn: str, frame_fn: str) -> bool:
    """A traceback names the function (``__init__``), the index its qualified name (``Llama.__init__``)."""
    return site_fn == frame_fn or site_fn.endswith("." + frame_fn)


@dataclass(frozen=True)
class Found:
    """An indexed assert a report points at, and how: ``line`` (the frame's file and line in these
    releases), ``condition`` (the statement or condition quoted), or both."""

    site: AssertSite
    how: str  # "line+condition", "line", "condition"
    releases: tuple[str, ...]  # where the site is at the frame's line (how has "line"); else every release


def at_frame(
    framework: str, file: str, line: int | None, function: str, condition: str | None
) -> list[Found]:
    """The asserts of ``file`` in ``function`` that a traceback's frame points at: at its ``line`` in some
    release, or with its ``condition`` (normalised) when the line is in no indexed release (a release not
    indexed, a patched checkout); the line and the condition agreeing first."""
    out: list[Found] = []
    for site in sites(framework):
        if site.file != file or not _same_function(site.function, function):
            continue
        releases = tuple(v for v, lines in site.at.items() if line is not None and line in lines)
        same = condition is not None and site.condition == condition
        if releases and same:
            out.append(Found(site, "line+condition", releases))
        elif releases and condition is None:
            out.append(Found(site, "line", releases))
        elif same:
            out.append(Found(site, "condition", tuple(site.at)))
    order = {"line+condition": 0, "line": 1, "condition": 2}
    return sorted(out, key=lambda f: order[f.how])


def with_condition(condition: str, framework: str | None = None, file: str | None = None) -> list[Found]:
    """The asserts whose condition is ``condition`` (normalised), of ``file`` when the text names one."""
    out = []
    for fw in _frameworks(framework):
        for site in sites(fw):
            if site.condition == condition and (file is None or site.file == file):
                out.append(Found(site, "condition", tuple(site.at)))
    return out


def release_span(releases: Sequence[str], framework: str) -> str:
    """``0.5.10.post1-0.5.23`` for a run of indexed releases, ``a, b`` for a few apart."""
    every = indexed_releases(framework)
    if not releases:
        return ""
    pos = sorted(every.index(v) for v in releases if v in every)
    runs: list[tuple[int, int]] = []
    for p in pos:
        if runs and p == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    return ", ".join(every[a] if a == b else f"{every[a]}-{every[b]}" for a, b in runs)
