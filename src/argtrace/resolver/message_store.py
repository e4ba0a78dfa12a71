"""The bundled message indexes (``frameworks/data/messages/<framework>.json.gz``, written by
``scripts/gen_messages.py``) and matching a pasted error or log text against them (``argtrace why``).

File shape (format 1)::

    {"format": 1, "framework": "sglang", "generated_by": "scripts/gen_messages.py",
     "releases": {"0.5.23": {"wheel": "...whl", "sha256": "...", "sites": 5200}, ...},
     "sites": [{"f": "sglang/srt/...py", "fn": "Class.method", "k": "raise|assert|log|warn",
                "x": "RuntimeError | warning | ...", "p": [parts], "c": [conditions], "r": [reads],
                "at": {"0.5.10.post1": [60], "0.5.23": [64]}}, ...]}

``p``/``c``/``r`` are described in :mod:`argtrace.resolver.message_index`. A site shared by several
releases is stored once, with its line(s) in each. Stdlib only, besides argtrace's data cache.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.resolver.message_lookup import Built, Lookup

MESSAGE_DIR = Path(__file__).resolve().parent.parent / "frameworks" / "data" / "messages"
FORMAT = 1
# Libraries a launch goes through, indexed beside the frameworks (their store says ``"library": true``):
# library -> the modules indexed, those whose messages name the value of a server setting (a repo id, a
# revision); the rest of the library (uploads, inference clients) is nothing a launch reaches.
LIBRARY_MODULES: dict[str, tuple[str, ...]] = {
    "huggingface_hub": (
        "huggingface_hub/utils/_validators.py",  # validate_repo_id: HFValidationError
        "huggingface_hub/utils/_errors.py",  # hf_raise_for_status (0.x): repository / revision not found
        "huggingface_hub/utils/_http.py",  # hf_raise_for_status (1.x+)
        "huggingface_hub/errors.py",
    ),
    # one function (``FILE::FUNCTION``): the rest of Triton is kernel-language errors a launch does not name
    "triton": ("triton/language/core.py::dtype.to_ir",),  # "type fp8e4nv not supported in this architecture"
    # FlashAttention 4 (CuTe DSL; the flash-attn-4 wheel's ``flash_attn/cute``): its interface refuses a GPU
    # generation or dtype ("FP8 is only supported on SM100 ..."); SGLang and vLLM ship copies of it
    # (sglang/jit_kernel/flash_attn/cute, vllm/vllm_flash_attn/cute), which these sites name as the library's
    "flash_attn": ("flash_attn/cute/interface.py",),
    # transformers' AutoConfig: the model setting's directory or repo has no config.json model_type it knows
    # ("Unrecognized model in X", "... has model type `x` but Transformers does not recognize this
    # architecture"); both frameworks load every model's configuration through it. AutoTokenizer likewise:
    # the tokenizer setting's (or the model's) tokenizer_config.json names a class this release lacks
    # (vllm#36585's "Tokenizer class TokenizersBackend does not exist or is not currently imported.")
    # AutoImageProcessor likewise (proxy-lite#25's "Unrecognized image processor in X": a
    # preprocessor_config.json naming an image processor class this release removed), and ProcessorMixin's
    # check of the processor's parts (vllm#20855's "Received a Qwen2VLImageProcessorFast for argument
    # image_processor, but a Qwen2VLImageProcessor was expected": a transformers release the model's
    # processor was not made for)
    "transformers": (
        "transformers/models/auto/configuration_auto.py",
        "transformers/models/auto/tokenization_auto.py",
        "transformers/models/auto/image_processing_auto.py",
        "transformers/processing_utils.py",
    ),
}


def is_library(name: str) -> bool:
    """Whether a message index is a library's (huggingface_hub), not a framework's."""
    return name in LIBRARY_MODULES


@functools.cache
def repo_id_rule() -> dict[str, Any] | None:
    """huggingface_hub's repo-id rule as scripts/gen_messages.py read it from the newest indexed wheel:
    ``REPO_ID_REGEX``'s pattern and flags, whether ``validate_repo_id`` matches or fullmatches it, and
    where (``release``, ``file``, ``line``, ``validator_line``)."""
    store = load_store("huggingface_hub")
    rule = (store or {}).get("repo_id")
    return dict(rule) if isinstance(rule, dict) else None


def site_key(site: Mapping[str, Any]) -> tuple[str, str, str, str, str, str]:
    """What makes two releases' sites the same site: file, function, kind, class, message, conditions."""
    return (
        site["f"],
        site["fn"],
        site["k"],
        site["x"],
        json.dumps(site["p"], ensure_ascii=False),
        json.dumps(site["c"], ensure_ascii=False),
    )


def sort_releases(versions: Iterable[str]) -> list[str]:
    from argtrace.frameworks.schema import version_key

    return sorted(set(versions), key=version_key)


# ------------------------------------------------------------------------------------------- loading


_WORD = re.compile(r"[A-Za-z0-9_]+")
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text)


@dataclass
class Site:
    """One site, prepared for matching."""

    framework: str
    file: str
    function: str
    kind: str
    what: str
    parts: list[Any]
    conditions: list[str]
    reads: list[str]
    at: dict[str, list[int]]
    source: str = "messages"  # or "raise_sites" (a release indexed only for its argument modules)
    _words: list[str] | None = field(default=None, repr=False)

    @functools.cached_property
    def template(self) -> str:
        return template_of(self.parts)

    @property
    def words(self) -> list[str]:
        """The literal words, in order (optional pieces included)."""
        if self._words is None:
            self._words = [w.lower() for w in _WORD.findall(" ".join(_literals(self.parts)))]
        return self._words

    @functools.cached_property
    def literal_chars(self) -> int:
        return sum(map(str.isalnum, "".join(_literals(self.parts, optional=False))))

    @functools.cached_property
    def gaps(self) -> list[bool]:
        """Per literal word: whether a placeholder (or an optional piece's edge) comes right before it."""
        out: list[bool] = []
        gap = False

        def walk(parts: Sequence[Any]) -> None:
            nonlocal gap
            for part in parts:
                if isinstance(part, str):
                    for _word in _WORD.findall(part):
                        out.append(gap)
                        gap = False
                elif isinstance(part, list):
                    gap = True
                else:
                    gap = True
                    walk(part["o"])
                    gap = True

        walk(self.parts)
        return out

    @functools.cached_property
    def distinct(self) -> int:
        """How many different words of 3+ characters the message has (the prefilter's yardstick)."""
        return len({w for w in self.words if len(w) >= 3})

    @functools.cached_property
    def positions(self) -> dict[str, list[int]]:
        """Literal word -> its positions in :attr:`words` (for the in-order walk)."""
        out: dict[str, list[int]] = {}
        for i, word in enumerate(self.words):
            out.setdefault(word, []).append(i)
        return out


def _literals(parts: Sequence[Any], optional: bool = True) -> list[str]:
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and optional:
            out.extend(_literals(part["o"]))
    return out


def template_of(parts: Sequence[Any]) -> str:
    """The message with ``{expr}`` placeholders and ``[...]`` around optional pieces."""
    return _norm(_template(parts)).strip()


def _template(parts: Sequence[Any]) -> str:
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, list):
            out.append("{" + str(part[0]) + "}")
        else:
            out.append("[" + _template(part["o"]) + "]")
    return "".join(out)


@functools.cache
def load_store(framework: str) -> dict[str, Any] | None:
    path = MESSAGE_DIR / f"{framework}.json.gz"
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError, EOFError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return data


def indexed_releases(framework: str) -> list[str]:
    return list(site_index(framework).releases)


def frameworks() -> list[str]:
    """Frameworks with a message index or (only) argument-module raise sites."""
    from argtrace.resolver.raise_index import bundled

    names = {p.name.split(".", 1)[0] for p in MESSAGE_DIR.glob("*.json.gz")}
    return sorted(names | {fw for fw, _ in bundled()})


def sites(framework: str) -> tuple[Site, ...]:
    """Every site of a framework (``why`` reads only those its prefilter keeps: :func:`site_index`)."""
    index = site_index(framework)
    if index.every is None:
        index.every = tuple(index.site(i) for i in range(len(index)))
    return index.every


def _load_sites(framework: str) -> tuple[Site, ...]:
    """Every site of a framework: the message index, plus the argument-module raise sites of releases
    that only ``scripts/gen_schemas.py`` indexed (a release added before its messages were)."""
    out: list[Site] = []
    store = load_store(framework) or {}
    for raw in store.get("sites", []):
        out.append(
            Site(framework, raw["f"], raw["fn"], raw["k"], raw["x"], raw["p"], raw["c"], raw["r"], raw["at"])
        )
    from argtrace.resolver.raise_index import bundled, load_index

    full = set(store.get("releases", {}))
    for fw, version in bundled():
        if fw != framework or version in full:
            continue
        for raw in (load_index(fw, version) or {}).get("sites", []):
            parts = _parts_of_template(raw.get("message") or "")
            if not parts:
                continue
            kind = "assert" if "assert" in raw else "raise"
            reads = [f"self.{name}" for name in raw.get("fields") or []]
            out.append(
                Site(
                    framework,
                    raw["file"],
                    raw["function"],
                    kind,
                    raw["exception"],
                    parts,
                    list(raw.get("conditions") or []),
                    reads,
                    {version: [raw["line"]]},
                    source="raise_sites",
                )
            )
    return tuple(out)


def _parts_of_template(template: str) -> list[Any]:
    parts: list[Any] = []
    for piece in re.split(r"(\{[^{}]*\})", template):
        if piece.startswith("{") and piece.endswith("}"):
            parts.append([piece[1:-1]])
        elif piece:
            parts.append(piece)
    return parts


def _raise_dir() -> Path:
    """The raise-site directory (imported late: raise_index is not needed to match messages)."""
    from argtrace.resolver.raise_index import RAISE_DIR as path

    return path


def _built(framework: str) -> Built:
    """The sites as plain rows, their word index and what the prefilter reads of each, built from the index
    files (what ``resolver/message_lookup.py`` keeps)."""
    from argtrace.resolver.message_lookup import Built

    every = _load_sites(framework)
    releases = sort_releases((load_store(framework) or {}).get("releases", {}))
    load_store.cache_clear()  # the parsed JSON is not needed any more
    words: dict[str, list[int]] = {}
    for i, site in enumerate(every):
        for word in set(site.words):
            if len(word) >= 3:
                words.setdefault(word, []).append(i)
    rows = [
        (s.file, s.function, s.kind, s.what, s.parts, s.conditions, s.reads, s.at, s.source, s.words)
        for s in every
    ]
    return Built(releases, rows, words, [s.distinct for s in every], [list(s.at) for s in every])


class SiteIndex:
    """A framework's sites, read from its lookup file (``resolver/message_lookup.py``) one by one as the
    prefilter asks for them: the word index and each site's word count and releases are in memory, the
    sites themselves only once read."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self.lookup = self._open(rebuild=False)
        self._sites: dict[int, Site] = {}
        self.every: tuple[Site, ...] | None = None  # all of them, once :func:`sites` asked

    def _open(self, rebuild: bool) -> Lookup:
        from argtrace.resolver.message_lookup import open_lookup

        fw = self.framework
        sources = [MESSAGE_DIR / f"{fw}.json.gz", *sorted(_raise_dir().glob(f"{fw}-*.json"))]
        modules = [Path(__file__), Path(__file__).with_name("message_lookup.py")]
        # the whole-list copies earlier releases of argtrace kept (data_cache "why-<framework>")
        stale = [f"why-{fw}-{'[0-9a-f]' * 8}.marshal"]
        return open_lookup(f"why-{fw}", [*sources, *modules], lambda: _built(fw), stale, rebuild)

    def __len__(self) -> int:
        return len(self.lookup)

    @property
    def releases(self) -> tuple[str, ...]:
        return self.lookup.releases

    def site(self, i: int) -> Site:
        """Site ``i`` (its position in the full list); a damaged record makes the file be built again."""
        from argtrace.resolver.message_lookup import Damaged

        site = self._sites.get(i)
        if site is None:
            try:
                row = self.lookup.row(i)
            except Damaged:
                self.lookup.close()
                self.lookup = self._open(rebuild=True)
                row = self.lookup.row(i)
            site = self._sites[i] = _site_of_row(self.framework, row)
        return site


@functools.cache
def site_index(framework: str) -> SiteIndex:
    return SiteIndex(framework)


def _site_of_row(framework: str, row: Sequence[Any]) -> Site:
    file, function, kind, what, parts, conditions, reads, at, source, words = row
    site = Site(framework, file, function, kind, what, parts, conditions, reads, at, source)
    site._words = words
    return site
