"""The indexed assert a report points at without words of its own (for ``why`` and ``log``).

A bare ``assert cond`` prints ``AssertionError`` and nothing else, so the message index cannot hold it; the
assert index (``resolver/assert_store.py``, generated from the wheels) can. A report points at one by a
traceback's last frame (file, line, function, and since Python 3.11 the statement), or by the condition
alone: an issue title (``AssertionError: assert self.being_chunked_req is None``), a sentence
(``Assertion `assert self.chunked_req is None` in line 1839 of python/sglang/srt/managers/scheduler.py``).
The frame's line says which indexed releases have that assert there; the condition, normalised by ``ast``,
finds the site when the line is not given or the release is not indexed. The site gives what the paste does
not: the whole condition (a multi-line assert shows its first line only), the conditions it runs under,
the local operands' assignments (``tp_size = get_tensor_model_parallel_world_size()``) and the server
arguments the condition reads (``server_args.chunked_prefill_size`` -> ``--chunked-prefill-size``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.resolver.assert_index import normalize
from argtrace.resolver.assert_store import AssertSite, Found, at_frame, release_span, with_condition

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# "assert COND" quoted in a title or a sentence: the condition runs to a backtick, a quote or the line's end
_QUOTED = re.compile(r"\bassert\s+(?P<cond>[^`'\"\n]{3,400})")
# a package file a sentence names ("in line 1839 of python/sglang/srt/managers/scheduler.py")
_FILE = re.compile(r"(?:^|[\s/`'\"(])(?P<rel>(?:sglang|vllm)/[\w/]+\.py)\b")
_LINE = re.compile(r"\bline (?P<line>\d{1,6})\b")
# the objects whose attributes are server arguments: ServerArgs, argparse's namespace, vLLM's config classes
# (``vllm_config.parallel_config.tensor_parallel_size``); ``config`` alone and ``hf_config`` are the model's
_SETTING_OWNER = re.compile(r"^(?:server_args|args|engine_args|\w+_config)$")
_MODEL_OWNER = frozenset({"hf_config", "hf_text_config", "text_config", "vision_config", "config"})
# files whose ``self`` is the server arguments object (ServerArgs, vLLM's config dataclasses, EngineArgs)
_ARGUMENT_FILE = re.compile(r"(?:server_args\.py|arg_utils\.py|/config/[\w/]+\.py|/config\.py)$")
MAX_SHOWN = 3  # sites listed for a condition many files share (the models' head-count checks)


# a title that writes the false condition after the class (vllm#33074's "AssertionError: num_kv_heads == 1"):
# Python printed nothing after it, the reporter wrote the statement's condition
_AFTER_CLASS = re.compile(r"\bAssertionError:\s+(?!assert\b)(?P<cond>[^`'\"\n]{3,400})")


def _comparison(condition: str) -> bool:
    import ast

    try:
        body = ast.parse(condition, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    return isinstance(body, (ast.Compare, ast.BoolOp))


def quoted_condition(text: str) -> tuple[str, str | None, int | None] | None:
    """(normalised condition, file, line) of an ``assert COND`` a text quotes outside a traceback frame;
    the condition is cut at the first comma that leaves an expression (``assert x is None, related to ...``),
    the file and line are those a sentence names. None when no quoted condition parses."""
    for m in _QUOTED.finditer(text):
        raw = m.group("cond").strip()
        cond = normalize(raw)
        pieces = raw.split(",")
        for n in range(len(pieces) - 1, 0, -1):
            if cond is not None:
                break
            cond = normalize(",".join(pieces[:n]))
        words = raw.split()
        for n in range(len(words) - 1, 2, -1):
            # a sentence going on after the statement without a comma (vllm PR#44125's "assert token_budget
            # >= 0 FAILS (bare AssertionError)"): its longest head that is a comparison
            if cond is not None:
                break
            head = normalize(" ".join(words[:n]))
            cond = head if head is not None and _comparison(head) else None
        if cond is None:
            continue
        before = text[: m.start()].rstrip(" ")
        statement = not before or before.endswith(("\n", "`", "AssertionError:", "AssertionError"))
        if not statement and re.fullmatch(r"\w+", cond):
            continue  # "the assert failed": a word of prose, not a condition
        f = _FILE.search(text)
        line = _LINE.search(text)
        return cond, (f.group("rel") if f else None), (int(line.group("line")) if line else None)
    after = _AFTER_CLASS.search(text)
    if after is not None:
        cond = normalize(after.group("cond"))
        if cond is not None and _comparison(cond):
            return cond, None, None
    return None


def settings(site: AssertSite, framework: str) -> list[dict[str, str]]:
    """The server arguments the assert's condition (and the conditions around it) read: an attribute of
    the server-arguments object or of a vLLM config class, or ``self.X`` in an argument module, whose name
    is a dest of the newest bundled schema."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    names: list[str] = []
    named = _plain_names(site.condition)
    for chain in site.reads:
        if chain.startswith("env:"):
            continue
        parts = chain.split(".")
        owner = parts[-2] if len(parts) >= 2 else ""
        if owner in _MODEL_OWNER:
            continue
        if _SETTING_OWNER.match(owner) or (
            parts[0] == "self" and len(parts) == 2 and _ARGUMENT_FILE.search(site.file)
        ):
            names.append(parts[-1])
        elif parts[0] == "self" and len(parts) == 2:
            named.append(chain)  # another class's ``self.tp_size``: spelled like the setting, no more
    if not names and not named:
        return []
    versions = bundled_versions(framework, include_user=False)
    if not versions:
        return []
    schema = load_schema(framework, versions[-1])
    flags = {
        o.dest: long[0]
        for o in schema.options
        if (long := [s for s in o.option_strings if s.startswith("--")])
    }
    out = [{"name": n, "flag": flags[n], "how": "read"} for n in dict.fromkeys(names) if n in flags]
    # a local operand or another class's attribute spelled like a setting (``tp_size`` in a model's
    # attention: the tensor-parallel world size): the setting it stands for, by name only (the other
    # framework's spelling through the known pairs), so it says "named like"
    from argtrace.frameworks.equivalents import KNOWN_PAIRS

    alias = {a: b for a, b in KNOWN_PAIRS} if framework == "vllm" else {b: a for a, b in KNOWN_PAIRS}
    taken = {o["name"] for o in out}
    for name in dict.fromkeys(named):
        key = name.rsplit(".", 1)[-1]
        dest = key if key in flags else alias.get(key)
        if dest in flags and dest not in taken:
            out.append({"name": name, "flag": flags[dest], "how": "named"})
            taken.add(dest)
    return out


def _plain_names(condition: str) -> list[str]:
    """The plain names (locals) a condition reads: ``tp_size`` in ``x % tp_size == 0``."""
    import ast

    try:
        tree = ast.parse(condition, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return []
    return list(dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name)))


def _operands(site: AssertSite) -> str:
    return "; ".join(f"{name} = {expr}" for name, expr in site.assigned)


def describe(found: Sequence[Found], framework: str) -> dict[str, Any] | None:
    """The ``assert`` part of a ``why`` traceback or quote: the first site found (and how many others share
    its condition), its releases, conditions, operands and settings; None when nothing was found."""
    if not found:
        return None
    first = found[0]
    site = first.site
    lines = sorted({line for v in first.releases for line in site.lines(v)})
    shown = [
        {"file": f.site.file, "function": f.site.function, "releases": release_span(f.releases, framework)}
        for f in found[:MAX_SHOWN]
    ]
    return {
        "framework": framework,
        "file": site.file,
        "function": site.function,
        "condition": site.condition,
        "when": list(site.when),
        "operands": _operands(site),
        "message": site.message,
        "how": first.how,
        "releases": release_span(first.releases, framework),
        "lines": lines,
        "settings": settings(site, framework),
        "model": [r for r in site.reads if len(r.split(".")) >= 2 and r.split(".")[-2] in _MODEL_OWNER],
        "others": len(found) - 1,
        "sites": shown,
    }


def find_for_frame(
    framework: str, file: str, line: int | None, function: str, source: str | None
) -> dict[str, Any] | None:
    """The indexed assert a traceback's last frame points at (``source``: the statement shown under it)."""
    condition = None
    if source and source.startswith("assert "):
        condition = normalize(source[len("assert ") :].split(", ")[0]) or normalize(source[len("assert ") :])
    return describe(at_frame(framework, file, line, function, condition), framework)


def find_quoted(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The indexed asserts with the condition a text quotes (``assert COND``), those of the file it names
    first; the framework is the one whose sites have it (SGLang's and vLLM's models share their checks)."""
    quoted = quoted_condition(text)
    if quoted is None:
        return None
    condition, file, line = quoted
    found = with_condition(condition, framework, file) or with_condition(condition, framework)
    if not found:
        return None
    # several sites assert the same condition (every model's head-count check): those whose file or
    # function the text's words name first ("nixl", "chatglm", "scheduler"); ties stay ambiguous
    words = _words(text)
    scores = {f.site: _named_by(f.site, words) for f in found}
    found = sorted(found, key=lambda f: -scores[f.site])
    top = scores[found[0].site]
    # ambiguous: two files assert it in one release; the same assert moved between files (vLLM's
    # reorg_kvcache from v1/attention/backends/mla/common.py to layers/attention/mla_attention.py) is one
    best = [f.site for f in found if scores[f.site] == top]
    ambiguous = any(
        a.file != b.file and a.framework == b.framework and set(a.at) & set(b.at)
        for i, a in enumerate(best)
        for b in best[i + 1 :]
    )
    if line is not None:
        # the sentence's line: the releases whose assert sits there, those sites first
        placed = [
            Found(f.site, "line+condition", tuple(v for v, ls in f.site.at.items() if line in ls))
            for f in found
            if any(line in ls for ls in f.site.at.values())
        ]
        found = placed + [f for f in found if f.site not in {p.site for p in placed}]
    fw = found[0].site.framework
    out = describe([f for f in found if f.site.framework == fw], fw)
    if out is not None:
        out["frameworks"] = sorted({f.site.framework for f in found})
        out["ambiguous"] = ambiguous and out["how"] != "line+condition"
    return out


def _named_by(site: AssertSite, words: set[str]) -> int:
    """How many words of the site's file name and function the text holds (``nixl`` for
    ``nixl_connector.py``); the package's own path words (``vllm``, ``model_executor``) count for nothing."""
    own = _words(f"{site.file.rsplit('/', 1)[-1][:-3]} {site.function}")
    return len((own - _COMMON_WORDS) & words)


def _words(text: str) -> set[str]:
    """Lower-case words, a CamelCase name split into its words (``DeepseekV32IndexerBackend``: deepseek,
    v32, indexer, backend), so a title's ``DeepseekV32`` meets the class it names."""
    return set(re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower()))


_COMMON_WORDS = frozenset(
    {"init", "self", "forward", "get", "py", "utils", "vllm", "sglang", "and", "the", "backend", "layer"}
)


# `File "PATH", line N, in FUNC` of a frame inside SGLang or vLLM (the last vllm/ or sglang/ is the package)
_FRAME_IN_PACKAGE = re.compile(
    r'File "(?:[^"]*/)?(?P<rel>(?:vllm|sglang)/[\w./-]+\.py)", line (?P<line>\d+), in (?P<func>[\w.<>]+)'
)


def assert_of_traceback(lines: Sequence[str]) -> dict[str, Any] | None:
    """The indexed assert a traceback (its lines, log prefixes removed) ends in: its last SGLang/vLLM frame
    and the statement under it; None when that frame is no indexed assert."""
    last: tuple[re.Match[str], str | None] | None = None
    for n, line in enumerate(lines):
        m = _FRAME_IN_PACKAGE.search(line)
        if m is None:
            continue
        below = lines[n + 1].strip() if n + 1 < len(lines) else ""
        last = (m, below if below.startswith("assert ") else None)
    if last is None:
        return None
    m, source = last
    rel = m.group("rel")
    cut = max(rel.rfind("vllm/"), rel.rfind("sglang/"))
    rel = rel[cut:] if cut > 0 and rel[cut - 1] == "/" else rel
    framework = "vllm" if rel.startswith("vllm/") else "sglang"
    return find_for_frame(framework, rel, int(m.group("line")), m.group("func"), source)
