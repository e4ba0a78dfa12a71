"""Matching a pasted error or log text against the message sites of :mod:`argtrace.resolver.message_store`.

The text is cut into lines; each loses the prefixes frameworks and Python add (log prefixes such as
``[2025-05-12 10:00:00 TP0]`` and ``ERROR 05-12 10:00:00 [file.py:12]``, ``(EngineCore_DP0 pid=1)``,
rank tags ``[rank0]:``, exception class names ``ValueError:``, traceback frames). A site matches when its
literal pieces occur in order in a line or in the whole text (placeholders are wildcards: the pieces are
found with ``str.find``, never with a backtracking regex), or, for a truncated or partial paste, when at
least 80% of the text's words are found in order among the site's literal words. Matches are ranked by
*specificity*: the number of literal characters of the site found in the text.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from argtrace import safe_json
from argtrace.resolver.message_store import Site, frameworks, is_library, site_index, sites

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_SPECIFICITY = 8  # literal alphanumeric characters a match needs
MIN_PARTIAL = 16  # ... and a partial one ("out of memory" alone says nothing about where)
SHORT_WHOLE = 20  # literal characters below which a whole match yields to a partial one twice as long
MAX_CANDIDATE_SITES = 600  # prefilter survivors scored per framework
MAX_TEXT = 20_000  # characters of pasted text looked at
COVERAGE = 0.8
HALF = 0.5
VALUE_WORDS = 4  # words a placeholder's value may account for
# a partial match resting on fewer literal characters is one `why` calls weak once a second sign (another
# exception class) is against it (why_confidence: STRONG_CHARS * 2); only such a match is dropped for its
# class
WEAK_PARTIAL = 40
_WORD = re.compile(r"[A-Za-z0-9_]+")
# a command-line flag in a text is one word, not prose: "--decode-context-parallel-size" in a title is not the
# words of SGLang's "decode context parallel group is already initialized" (vllm#54665). Joined with
# underscores it still meets a message that names the field (decode_context_parallel_size); a message quoting
# the flag itself is matched whole (``_full``), character by character
_FLAG_WORD = re.compile(r"(?<![\w-])--([A-Za-z0-9]+(?:-[A-Za-z0-9]+)+)")


def _text_words(text: str) -> list[str]:
    """A text's words in order, for the in-order walk of :func:`_partial`, a ``--flag-name`` as one word."""
    return [w.lower() for w in _WORD.findall(_FLAG_WORD.sub(lambda m: m.group(1).replace("-", "_"), text))]


_EXC_PREFIX = re.compile(
    r"^(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)|AssertionError|"
    r"KeyboardInterrupt)(?:\(\w*\))?:\s*"
)
_PYDANTIC = re.compile(r"^(?:Value|Assertion|Type|Key) error,\s*")  # pydantic wraps a validator's error
_PY_LOGGING = re.compile(r"^(?:ERROR|WARNING|CRITICAL|INFO|DEBUG):[\w.]*:\s*")
_TORCH_TAG = re.compile(r"^\[[WEI]\d{6,}[^\]]*\]\s*")  # c10's [W1203 10:00:00.123 ...] prefix
_RANK_ANY = re.compile(r"^\[rank\d+\]:\s*|^\(\w+(?: [\w]+=[\w.]+)*\)\s+|^E\s{2,}|^\|\s+")
# docker compose's "service-1  | " before each line of a service's output (once: "a | b" is not one)
_COMPOSE = re.compile(r"^[A-Za-z0-9][\w.-]*\s+\|(?:\s+|$)")
_FRAME = re.compile(r'^(?:File "[^"]*", line \d+|Traceback \(most recent call last\)|\^+$|~+$)')
# The server's own configuration lines (SGLang's ``server_args=ServerArgs(...)``, vLLM's ``non-default args:
# {...}``, ``args: Namespace(...)``, its engine's ``Initializing a V1 LLM engine (v..) with config: ...``):
# the values it started with, never an error; their setting names matched unrelated raise sites that name the
# same settings (vllm#52029's engine config read as "mm_tensor_ipc='torch_shm' is not supported with
# data_parallel_size > 1 ...", getainode/ainode#34's as vLLM's input dump on an engine failure)
_DUMP_LINE = re.compile(
    r"\bserver_args=ServerArgs\(|\bnon-default args: \{|\bargs: Namespace\("
    r"|\bInitializing an? (?:V\d )?LLM engine \(v[^)]*\) with config: "
)


def _alnum(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def strip_prefixes(line: str, *, keep_class: bool = False) -> str:
    """A log or traceback line without the prefixes frameworks and Python put before a message (with
    ``keep_class``, its exception class kept: ``RuntimeError: ...``)."""
    from argtrace.layers.log.analyze import split_prefix

    text = _COMPOSE.sub("", line.strip(), count=1).strip()
    patterns = (
        (_RANK_ANY, _TORCH_TAG, _PY_LOGGING)
        if keep_class
        else (_RANK_ANY, _TORCH_TAG, _PY_LOGGING, _EXC_PREFIX, _PYDANTIC)
    )
    for _ in range(6):  # prefixes nest: (proc pid) ERROR date [file] [rank0]: ValueError: ...
        before = text
        text = split_prefix(text).body.strip()
        for pattern in patterns:
            text = pattern.sub("", text, count=1).strip()
        if text == before:
            break
    return text


_SOURCE_LINE = re.compile(r"^(?:assert|raise)\s")


def _source_message(line: str) -> str | None:
    """The message of a pasted source line that raises (``assert arch // 10 == 10, "FP8 is only ..."``,
    ``raise ValueError(f"... {x}")``), as a traceback prints the line that failed: a site matches its
    message, not the code around it. None for any other line."""
    import ast

    if not _SOURCE_LINE.match(line):
        return None
    try:
        stmt = ast.parse(line).body[0]
    except (SyntaxError, IndexError):
        return None
    node: ast.expr | None = None
    if isinstance(stmt, ast.Assert):
        node = stmt.msg
    elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
        node = stmt.exc.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        pieces = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        return " ".join(" ".join(pieces).split()) or None
    return None


_JSON_BODY = re.compile(r'^(?:data:\s*)?\{.*"(?:message|detail|error)"\s*:')
_MESSAGE_KEYS = ("message", "detail", "msg", "error")


def _json_message(line: str) -> str | None:
    """The message of an HTTP error body pasted as the client got it (vLLM's and SGLang's
    ``{"object":"error","message":"\\"auto\\" tool choice ...","type":"BadRequestError",...}``, FastAPI's
    ``{"detail": ...}``, OpenAI's ``{"error": {"message": ...}}``): JSON escapes the message's quotes, so
    its words no longer follow the site's template. A body cut short, or one escaping ``'`` (not JSON:
    ``model\\'s``), loses the escapes instead. None for any other line."""

    text = line.strip()
    if not _JSON_BODY.match(text):
        return None
    body = text[text.index("{") :]

    def found(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [m for key in _MESSAGE_KEYS if key in node for m in found(node[key])]
        return []

    for attempt in (body, body.replace("\\'", "'")):
        try:
            texts = found(safe_json.loads(attempt))
        except ValueError:
            continue
        return " ".join(texts) or None
    return body.replace('\\"', '"').replace("\\'", "'")


# an exception's own line ("cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: ..." vllm#19613):
# a frame of compiled code (a .pyx, .so) quotes no source line, so the exception line follows it directly
_EXCEPTION_LINE = re.compile(r"(?:^|\s)(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning): ")


def candidates(text: str) -> list[str]:
    """The texts a site may match: the whole paste (lines joined) and each message line on its own."""
    lines = []
    after_frame = False  # the line after a traceback's `File "...", line N` is that line's source code
    for raw in text[:MAX_TEXT].splitlines():
        raw = _json_message(raw) or raw
        line = " ".join(strip_prefixes(raw).split())
        if _FRAME.match(line):
            after_frame = line.startswith("File ")
            continue
        if after_frame and not _EXCEPTION_LINE.search(raw):
            after_frame = False
            continue
        after_frame = False
        line = _source_message(line) or line
        if line and not _DUMP_LINE.search(line):
            lines.append(line)
    joined = " ".join(lines)
    out = [joined] if joined else []
    if len(lines) > 1:
        out.extend(dict.fromkeys(line for line in lines if len(_WORD.findall(line)) >= 2))
    return out


@dataclass
class Match:
    """A framework message site that explains a text from the log: how specific and how complete the match
    is."""

    site: Site
    specificity: int  # literal alphanumeric characters of the site found in the text
    score: float  # the share of the text the site explains (1.0: all of it), for the JSON contract
    how: str  # "full" (every literal piece in order) or "partial" (a truncated or partial paste)
    text: str  # the candidate text it matched
    # words of the site's template inside the matched stretch that the text lacks (partial matches): the
    # "5" of "Qwen2.5-VL does not support ..." for a text that says "Qwen2-VL does not support ..."
    skipped: int = 0


# A placeholder that prints a whole number: ``{int(result[0])}``, ``{len(x)}``, ``{n:d}``, ``{n:,}``. Its
# value is digits, so a text with other characters there is another message: "CUDA error
# (/.../flash_fwd_launch_template.h:190): invalid argument" (FlashAttention 3's C++ check, sglang#10711) is
# not SGLang's "CUDA error {int(result[0])}({_cudaGetErrorString(result[0])})" with an empty number
_INT_HOLE = re.compile(r"^(?:int|len)\(.*\)$|:[-+ #0]*\d*(?:[,_]d?|d)$")
_INT_VALUE = re.compile(r"\s*[-+]?\d[\d,_]*\s*")


def _int_hole(part: list[Any]) -> bool:
    return bool(part) and isinstance(part[0], str) and bool(_INT_HOLE.search(part[0].strip()))


def _pieces(parts: Sequence[Any]) -> list[tuple[str, bool, bool, bool]]:
    """(literal, optional, placeholder_before, integer_placeholder_before) pieces, whitespace normalised."""
    out: list[tuple[str, bool, bool, bool]] = []
    gap = False
    number = False
    for part in parts:
        if isinstance(part, str):
            text = " ".join(part.split())
            if text:
                out.append((text, False, gap, number))
                gap = number = False
        elif isinstance(part, list):
            number = not gap and _int_hole(part)  # two holes in a row: the gap is not one number
            gap = True
        else:
            for text, _, inner_gap, inner_number in _pieces(part["o"]):
                out.append((text, True, gap or inner_gap, inner_number if inner_gap else number))
                gap = number = False
            gap = True
    return out


def _full(site: Site, text: str) -> tuple[int, float] | None:
    """Every required literal piece in order (optional ones counted when present), or the whole text
    inside one literal piece (a short, cut-out paste: "Not enough memory")."""
    pieces = _pieces(site.parts)
    # a cut-out is words of the message: one token (a variable's assignment on a wrapped line of its own,
    # "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0" of another message's advice, vllm PR#57595) is a name
    # many messages print, not a paste of this one
    if len(text) >= MIN_SPECIFICITY and " " in text.strip() and any(text in piece for piece, *_ in pieces):
        return _alnum(text), 1.0
    required = [p for p in pieces if not p[1]]
    if not required:
        return None
    first = required[0][0]
    last = required[-1][0]
    start = text.find(first)
    if start < 0 and first is last:
        start = _unstopped(first, text, 0)[0]  # a one-piece message whose copy drops its full stop
    tries = 0
    while start >= 0 and tries < 8:  # each occurrence of the first piece may start the message
        pos = start
        spec = 0
        end = start
        ok = True
        for index, (piece, optional, _gap, number) in enumerate(pieces):
            at = text.find(piece, pos)
            if at >= 0 and number and index and not _INT_VALUE.fullmatch(text[pos:at]):
                at = -1  # the whole number the template prints before this piece is not there
            if at < 0 and piece is last:
                # a copy that ends where the message ends but drops its closing full stop: an issue's
                # title ("Qwen3OmniMoeThinkerForConditionalGeneration does not support LoRA yet", vllm#41899)
                # is the message of V1's LoRAModelRunnerMixin.load_lora_model ("... yet."), not V0's shorter
                # "{} does not support LoRA" that its words also hold
                at, piece = _unstopped(piece, text, pos)
            if at < 0:
                if optional:
                    continue
                ok = False
                break
            spec += _alnum(piece)
            pos = at + len(piece)
            end = pos
        if ok:
            head = 0 if isinstance(site.parts[0], list) else start
            tail = len(text) if isinstance(site.parts[-1], (list, dict)) else end
            covered = _alnum(text[head:tail])
            return spec, round(min(1.0, covered / max(1, _alnum(text))), 3)
        start = text.find(first, start + 1)
        tries += 1
    return None


_STOPS = ".!"
_WORDS_END = re.compile(r"[A-Za-z]{2}\W*$")  # a sentence's last word before the stop


def _unstopped(piece: str, text: str, pos: int) -> tuple[int, str]:
    """Where ``piece`` (a message's last literal piece, ending in a full stop) stands at the very end of
    ``text`` without its stop, and the piece as found; (-1, piece) when it does not. Only at the end: a stop
    missing inside a text is another wording, not a cut; and only after words: a piece that is punctuation
    around a placeholder's value (``}.`` after a printed dict) says nothing of which wording was printed."""
    bare = piece.rstrip(_STOPS)
    body = text.rstrip()
    if bare == piece or not _WORDS_END.search(bare) or not body.endswith(bare):
        return -1, piece
    at = len(body) - len(bare)
    return (at, bare) if at >= pos else (-1, piece)


def _partial(site: Site, words: list[str]) -> tuple[int, float, int] | None:
    """A truncated or partial paste, or one with other text around the message: the text's words found
    in order among the site's literal words (greedy), then the densest run of those hits, at least 80%
    of the words between its first and last hit (so a log prefix or the next sentence does not count
    against it). The third value counts the template's words inside the window the text lacks: two sites
    whose words the text holds alike differ there ("Qwen2.5-VL ..." skips the "5" of a text about Qwen2-VL,
    "Qwen2-VL ..." skips nothing)."""
    if len(words) < 3 or not site.words:
        return None
    positions = site.positions
    gaps = site.gaps
    j = 0
    hits: list[int] = []  # positions in `words`
    sizes = [0]  # running sum of the hit words' lengths
    # words between two hits that a placeholder of the template between them explains (a value), running
    # sum; and placeholders that matched nothing (a site whose wording has no placeholder there fits better)
    explained = [0]
    empty = 0
    last_k = -1
    places_hit: list[int] = []  # the template position of each hit
    for i, word in enumerate(words):
        places = positions.get(word)
        if not places:
            continue
        k = bisect.bisect_left(places, j)
        if k < len(places):
            at = places[k]
            placeholder = last_k >= 0 and any(gaps[last_k + 1 : at + 1])
            between = i - hits[-1] - 1 if hits else 0
            # a value is a few words (a number, a name); more is text the template does not have
            explained.append(explained[-1] + (min(between, VALUE_WORDS) if placeholder else 0))
            empty += 1 if placeholder and between == 0 else 0
            hits.append(i)
            places_hit.append(at)
            sizes.append(sizes[-1] + len(word) - word.count("_"))  # alphanumerics, as _full counts
            j = at + 1
            last_k = at
    if len(hits) < 3:
        return None
    best: tuple[int, float, int] | None = None
    for a in range(len(hits) - 2):
        if best is not None and sizes[-1] - sizes[a] <= best[0]:
            break  # no window starting here or later can beat it
        for b in range(len(hits) - 1, a + 1, -1):
            count = b - a + 1
            values = explained[b + 1] - explained[a + 1]
            density = (count + values) / (hits[b] - hits[a] + 1)
            # and the hits must not skip most of the template between them: "out of memory ... to
            # allocate" is not "Out of memory. Try to lower your batch size. Try to allocate"
            spread = count / (places_hit[b] - places_hit[a] + 1)
            if density >= COVERAGE and spread >= HALF:
                # the run must be most of the text or much of the message: "is larger than the" inside a
                # long paste is not a match of every message that says so
                if count >= HALF * len(words) or count >= HALF * site.distinct:
                    chars = sizes[b + 1] - sizes[a]
                    skipped = places_hit[b] - places_hit[a] + 1 - count
                    if best is None or chars > best[0]:
                        best = (chars, round(density * 0.95 - 0.01 * empty, 3), skipped)
                break  # the widest window from this start
    return best


def _prefiltered(framework: str, texts: list[str], version: str | None) -> list[Site]:
    """The sites sharing at least two of the texts' words (all of them for a site with fewer), most of
    their words first, at most :data:`MAX_CANDIDATE_SITES`: only these are read from the index file
    (``resolver/message_lookup.py``). ``ARGTRACE_NO_LOOKUP=1``: :func:`scanned` instead (the same answer,
    ``bench/why_speed.py --check``)."""
    if os.environ.get("ARGTRACE_NO_LOOKUP", "") not in ("", "0"):
        return scanned(framework, texts, version)
    index = site_index(framework)
    lookup = index.lookup
    counts: Counter[int] = Counter()
    for word in _query_words(texts):
        counts.update(lookup.postings(word))
    distinct = lookup.distinct
    wanted = lookup.in_release(version) if version else None
    ranked = []
    for i, hits in counts.items():
        if wanted is not None and not wanted(i):
            continue
        if hits >= min(2, distinct[i]):
            ranked.append((hits / max(1, distinct[i]), hits, i))
    ranked.sort(reverse=True)
    return [index.site(i) for _, _, i in ranked[:MAX_CANDIDATE_SITES]]


def _query_words(texts: list[str]) -> set[str]:
    return {w.lower() for t in texts for w in _WORD.findall(t) if len(w) >= 3}


@functools.cache
def _site_words(framework: str) -> list[tuple[frozenset[str], int, Any]]:
    """Per site: its literal words, its count of distinct words of 3+ characters and its releases."""
    return [(frozenset(site.words), site.distinct, site.at) for site in sites(framework)]


def scanned(framework: str, texts: list[str], version: str | None) -> list[Site]:
    """:func:`_prefiltered` the way it was before the lookup file (issue 18): every site loaded and its words
    counted from the site itself, not from the file's word index, word counts or release bits."""
    every = sites(framework)
    words = _query_words(texts)
    ranked = []
    for i, (own, distinct, at) in enumerate(_site_words(framework)):
        if version and version not in at:
            continue
        hits = len(words & own)
        if hits and hits >= min(2, distinct):
            ranked.append((hits / max(1, distinct), hits, i))
    ranked.sort(reverse=True)
    return [every[i] for _, _, i in ranked[:MAX_CANDIDATE_SITES]]


_FRAME_AT = re.compile(r'^File "([^"]+)", line \d+, in ([\w<>.]+)')


def frames(text: str) -> set[tuple[str, str]]:
    """The (path, function) of each traceback frame the paste holds (``File ".../vllm/config.py", line
    1626, in __init__``), prefixes removed: the frame a message was raised in names its site."""
    out = set()
    for raw in text[:MAX_TEXT].splitlines():
        m = _FRAME_AT.match(strip_prefixes(raw))
        if m:
            out.add((m.group(1).replace("\\", "/"), m.group(2)))
    return out


def _framed(site: Site, found: set[tuple[str, str]]) -> bool:
    """The site's file and function are a frame of the pasted traceback (a release's site where the same
    message has moved to another function in others: vLLM's ``DeviceConfig.__init__`` of 0.6-0.7 and
    ``__post_init__`` of later releases)."""
    name = site.function.rsplit(".", 1)[-1]
    return any(fn == name and (path == site.file or path.endswith("/" + site.file)) for path, fn in found)


_LEVEL = re.compile(r"(?:^|[\s)\]])(WARNING|ERROR|CRITICAL)(?=[\s:])")
_EXC_NAME = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))(?::|\()")


def hints(text: str) -> set[str]:
    """What the prefixes say about the site: log levels (``warning``) and exception classes
    (``ValueError``), to break ties between a raise and a log of the same message."""
    found = {m.group(1).lower() for m in _LEVEL.finditer(text)}
    found |= {m.group(1) for m in _EXC_NAME.finditer(text)}
    return found


# A module of the framework the text names (``sglang.srt.models.midashenglm``): a message that names one
# (a loader's, a registry's "Ignore import error when loading {name}") is logged by that package's code.
_MODULE = re.compile(r"\b((?:sglang|vllm)(?:\.\w+){2,})")


def named_packages(text: str) -> set[str]:
    """The framework modules ``text`` names, as paths (``sglang/srt/models/midashenglm``)."""
    return {m.group(1).replace(".", "/") for m in _MODULE.finditer(text)}


def _in_named_package(site: Site, packages: set[str]) -> bool:
    folder = site.file.rpartition("/")[0]
    return bool(folder) and any(p.startswith(folder + "/") for p in packages)


_RAISED = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception))(?::|$)")


def raised_classes(text: str) -> dict[str, str]:
    """Each line of the text that begins with an exception class (``RuntimeError: ...``, prefixes removed):
    the line as :func:`candidates` gives it -> the class (a one-line text's whole is that line; the joined
    lines of a longer one say no class)."""
    found: dict[str, str] = {}
    for raw in text[:MAX_TEXT].splitlines():
        m = _RAISED.match(strip_prefixes(raw, keep_class=True))
        if m:
            found[" ".join(strip_prefixes(raw).split())] = m.group(1)
    return found


def _other_class(site: Site, raised: str | None, named: set[str]) -> bool:
    """A weak partial match, on a line that says which exception was raised, of a raise whose class is
    neither that one nor a subclass or base of it: "RuntimeError: selected index k out of range" (torch.topk's
    error, sglang#5160) is not the words of SGLang's assertion "... selected tokens ... out of range for
    seq_len=...". A strong one keeps its site (a quoted PR's "ValueError: Page size mismatch ..." is the
    release's RuntimeError, sglang PR#14474). Only Python's built-in classes are compared (a framework's
    own class may subclass anything), and a class the text names anywhere (a wrapper's "RuntimeError: ...
    AssertionError: ...") keeps its sites."""
    import builtins

    if raised is None or site.kind not in ("raise", "assert") or site.what.rsplit(".", 1)[-1] in named:
        return False
    mine = getattr(builtins, site.what.rsplit(".", 1)[-1], None)
    theirs = getattr(builtins, raised, None)
    if not (isinstance(mine, type) and isinstance(theirs, type)):
        return False
    if not (issubclass(mine, BaseException) and issubclass(theirs, BaseException)):
        return False
    return not (issubclass(mine, theirs) or issubclass(theirs, mine))


def _hinted(site: Site, found: set[str]) -> bool:
    if site.kind == "log":
        return site.what in found
    return site.what.rsplit(".", 1)[-1] in found


@dataclass(frozen=True)
class Preferred:
    """The release the user said or the text shows runs (``why --framework-version V`` of a release with
    no message index, a version line): its sites rank first. ``version`` is the indexed release nearest
    to what was given (the same one, else the newest indexed release not newer than it)."""

    framework: str
    version: str


def match_text(
    text: str,
    framework: str | None = None,
    version: str | None = None,
    prefer: Sequence[Preferred] = (),
) -> list[Match]:
    """Every site (of one framework / release when given) matching ``text``: the sites of the ``prefer``
    releases first (the release the user gave or the text shows: what it prints is what happened), then
    the sites a frame of the pasted traceback names (file and function), then the sites whose whole
    message matches (a partial match of a longer template of another release never
    outranks the message as printed), then the most specific; on a tie, the site whose kind the prefixes
    name (a ``WARNING`` line: the log call, ``ValueError:``: the raise), then the site in the package of a
    module the text names (``sglang.srt.models.X``: the models' registry), then the site the newest
    release still has."""
    texts = candidates(text)
    if not texts:
        return []
    found = hints(text[:MAX_TEXT])
    traced = frames(text)
    packages = named_packages(text[:MAX_TEXT])
    words_of = [_text_words(t) for t in texts]
    raised = raised_classes(text)
    out: list[Match] = []
    # a framework named still goes through the libraries it loads with (huggingface_hub's validators)
    names = frameworks() if framework is None else [framework, *(n for n in frameworks() if is_library(n))]
    for fw in names:
        # a framework's release says nothing of which library release ran with it
        for site in _prefiltered(fw, texts, None if is_library(fw) else version):
            if site.literal_chars < MIN_SPECIFICITY:
                continue
            best: Match | None = None
            for cand, cand_words in zip(texts, words_of, strict=True):
                full = _full(site, cand)
                # a short template ("{header} not found") found in a longer line explains it only when it
                # covers most of it: flashinfer's "Prebuilt kernels not found, using JIT backend" is not
                # SGLang's assertion (8 characters, 60% of the line)
                if full and full[0] >= MIN_SPECIFICITY and (full[0] >= MIN_PARTIAL or full[1] >= COVERAGE):
                    m = Match(site, full[0], full[1], "full", cand)
                else:
                    part = _partial(site, cand_words)
                    if not part or part[0] < MIN_PARTIAL:
                        continue
                    if part[0] < WEAK_PARTIAL and _other_class(site, raised.get(cand), found):
                        continue
                    m = Match(site, part[0], part[1], "partial", cand, skipped=part[2])
                if best is None or (m.specificity, m.how == "full") > (best.specificity, best.how == "full"):
                    best = m
            if best is not None:
                out.append(best)
    from argtrace.frameworks.schema import version_key

    # stable sorts: on a full tie the site of the newest release comes first, then by file
    out.sort(key=lambda m: m.site.file)
    out.sort(key=lambda m: max(version_key(v) for v in m.site.at) if m.site.at else (), reverse=True)
    # a function's fewest skipped template words: sites of one function (its wording in several releases)
    # share it, so the newest release's still comes first among them
    gaps: dict[tuple[str, str, str], int] = {}
    for m in out:
        key = (m.site.framework, m.site.file, m.site.function)
        gaps[key] = min(gaps.get(key, m.skipped), m.skipped)
    # a short template matched whole ("method {method} not supported", 18 characters, its placeholder
    # swallowing "mxfp4 is") does not outrank a partial match of twice its characters, when that one is long
    # enough to say where on its own (twice SHORT_WHOLE): the longer message holds its words and more of the
    # text ("The quantization method mxfp4 is not supported for the current GPU", 51, vllm#22288); a partial
    # of 25 ("See stack trace for root cause") against "Exception: {e}" (9) decides nothing (vllm#39685)
    longest = max((m.specificity for m in out if m.how == "partial"), default=0)

    def whole(m: Match) -> bool:
        short = m.specificity < SHORT_WHOLE
        return m.how == "full" and not (short and longest >= max(2 * m.specificity, 2 * SHORT_WHOLE))

    out.sort(
        key=lambda m: (
            bool(prefer)
            and not any(m.site.framework == p.framework and p.version in m.site.at for p in prefer),
            not _framed(m.site, traced),
            not whole(m),
            -m.specificity,
            # as specific, a function whose words the text holds without a gap explains it better: the
            # text's own model name against another model's message of the same shape (flashinfer#720)
            gaps[(m.site.framework, m.site.file, m.site.function)],
            not _hinted(m.site, found),
            not _in_named_package(m.site, packages),
            -m.score,
        )
    )
    return out
