"""YAML nodes with line numbers: how compose files and Kubernetes manifests are read.

This module owns loading a YAML stream into PyYAML's composed nodes (never constructed Python objects, so
every value keeps its line, and an alias is a shared node, never a copy: alias bombs cost nothing) and the
few accessors the manifest readers use (``_get``, ``_items``, ``_scalar``, ``_seq``, ``_line``). Loading
never crashes, never hangs and never echoes the file: a syntax error is one line, ``FILE:LINE:COL: not
valid YAML: PROBLEM``, without PyYAML's quoted source line (which may hold a token); a document nested
deeper than :data:`MAX_YAML_DEPTH` is skipped and reported, and the documents after it are still read.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Deeper than any real manifest (a CronJob's env entry sits at about 12 levels), and well inside what
# PyYAML survives: its composer recurses (3 Python frames per level: RecursionError near 330 levels), and
# its scanner slows down with the flow level ([[[...]]] 1,000 deep took 3 s, 2,000 deep 7 s, to scan).
MAX_YAML_DEPTH = 100
# A document starts at a `---` line; after a document that is not read, reading resumes there.
_DOCUMENT_START = re.compile(r"(?m)^---(?=[ \t\r\n]|$)")
_TOO_DEEP = f"the document nests deeper than {MAX_YAML_DEPTH} levels"


@dataclass
class YamlDocuments:
    """The documents of one YAML stream: the composed root nodes, and the ones not read."""

    nodes: list[Any] = field(default_factory=list)
    # (FILE:LINE:COL where the document could not be read further, why), in stream order
    skipped: list[tuple[str, str]] = field(default_factory=list)


class _TooDeep(Exception):
    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.mark = mark


@functools.cache
def _loader_class() -> Any:
    """``yaml.SafeLoader`` that stops at :data:`MAX_YAML_DEPTH` nested nodes (its composer) and flow
    collections (its scanner, before the slow part); built on first use so that importing this module does
    not import PyYAML."""
    import yaml

    class DepthLimitedLoader(yaml.SafeLoader):
        depth = 0

        def fetch_flow_collection_start(self, token_class: Any) -> None:
            if self.flow_level >= MAX_YAML_DEPTH:
                raise _TooDeep(self.get_mark())
            super().fetch_flow_collection_start(token_class)

        def scan_to_next_token(self) -> None:
            # libyaml's rule, which kubectl's Go YAML (a port of it) keeps: a tab is whitespace in flow
            # context and after a token that cannot start a simple key (`type: LoadBalancer<TAB>`), never
            # at a line's start; PyYAML takes spaces only there and refused such a manifest (GKE's
            # ai-ml/vllm-tpu/vllm-llama3-70b.yaml, which kubectl applies)
            if self.index == 0 and self.peek() == "\ufeff":
                self.forward()
            while True:
                while self.peek() == " " or (
                    (self.flow_level or not self.allow_simple_key) and self.peek() == "\t"
                ):
                    self.forward()
                if self.peek() == "#":
                    while self.peek() not in "\0\r\n\x85\u2028\u2029":
                        self.forward()
                if not self.scan_line_break():
                    return
                if not self.flow_level:
                    self.allow_simple_key = True

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_YAML_DEPTH:
                    raise _TooDeep(self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return DepthLimitedLoader


def _where(label: str, mark: Any) -> str:
    return f"{label}:{mark.line + 1}:{mark.column + 1}"


def _syntax_error(label: str, text: str, exc: Exception, offset: int) -> str:
    """One line for a YAML error: where and what, never the text around it (PyYAML's ``str(exc)`` quotes
    the source line, and a manifest's line may hold a token). ``offset``: where in ``text`` the loader that
    raised it started."""
    import yaml
    from yaml.reader import ReaderError

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        message = f"{_where(label, exc.problem_mark)}: not valid YAML: {exc.problem or exc.context}"
        if exc.context and exc.problem:
            mark = exc.context_mark
            since = f" that starts at {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
            message += f" ({exc.context}{since})"
            message += _indentation_hint(text, offset, exc)
        return message
    if isinstance(exc, ReaderError):
        position = offset + exc.position
        start = text.rfind("\n", 0, position) + 1
        line, col = text.count("\n", 0, position) + 1, position - start + 1
        character = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return f"{label}:{line}:{col}: not valid YAML: {exc.reason} (#x{character:04x})"
    return f"{label}: not valid YAML ({type(exc).__name__})"


def _indentation_hint(text: str, offset: int, exc: Any) -> str:
    """What a key indented less than the list item it belongs to means (kserve#3446: `command:` under
    `- args:`, kubectl's "did not find expected '-' indicator"). In a block sequence, a line at the
    sequence's own column must start a new item with `- ` (YAML 1.2, 8.2.1 Block Sequences); the item's
    mapping keys sit at the column after `- `. Only a key at the dash's column is read this way: the
    sentence names both columns, never the text."""
    problem, context = exc.problem or "", exc.context or ""
    mark, start = exc.problem_mark, exc.context_mark
    if "found '?'" not in problem or "block collection" not in context or start is None:
        return ""
    begin = offset + start.index
    line_end = text.find("\n", begin)
    item = text[begin : line_end if line_end >= 0 else len(text)]
    dash = re.match(r"-([ \t]+)(?=[^ \t#])", item)
    if dash is None or mark.column != start.column:
        return ""
    keys = start.column + len(dash.group(0))
    return (
        f"; the key at {mark.line + 1}:{mark.column + 1} is at the column of the list's `- ` "
        f"({start.line + 1}:{start.column + 1}), where YAML expects the next item: to belong to that item, "
        f"indent it to column {keys + 1} like the item's first key"
    )


def _read_documents(loader: Any, label: str, out: YamlDocuments) -> int | None:
    """Compose documents into ``out`` until the stream ends (``None``) or one is too deep: then the index
    (in the loader's text) from which to look for the next document."""
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                out.nodes.append(node)
    except _TooDeep as exc:
        out.skipped.append((_where(label, exc.mark), _TOO_DEEP))
        return int(exc.mark.index)
    except RecursionError:
        # called with little stack left, the composer fails before its own limit: the same, reported at
        # the reader's position (the stack is unwound here, so reading a mark is safe)
        mark = loader.get_mark()
        out.skipped.append((_where(label, mark), _TOO_DEEP))
        return int(mark.index)
    return None


def _load_yaml_nodes(data: bytes, label: str) -> YamlDocuments:
    """Every document of the stream as composed nodes (empty documents left out), with the documents that
    nest deeper than :data:`MAX_YAML_DEPTH` skipped; a syntax error anywhere is a ``UsageError``."""
    import yaml

    from argtrace.model import UsageError

    text = data.decode("utf-8", "replace")
    out = YamlDocuments()
    start = 0
    while True:
        # after a skipped document a new loader reads the rest: no parser state to repair, and the rest of
        # a deep document is never scanned
        rest = text[start:]
        loader = None
        try:
            loader = _loader_class()(rest)
            loader.line = text.count("\n", 0, start)  # marks carry the file's line numbers
            stopped = _read_documents(loader, label, out)
        except yaml.YAMLError as exc:
            raise UsageError(_syntax_error(label, text, exc, start)) from None
        finally:
            if loader is not None:
                loader.dispose()
        if stopped is None:
            return out
        following = _DOCUMENT_START.search(text, start + stopped + 1)
        if following is None:
            return out
        start = following.start()


def _get(node: Any, key: str) -> Any:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _items(node: Any) -> list[tuple[str, Any]]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(k.value), v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]


def _line(label: str, node: Any) -> str:
    """``FILE:LINE`` of a node: the file its marks name when it came from another file than ``label`` (a
    Kustomize build's resources and patches, ``kustomize.py``), else ``label``."""
    if node is None:
        return label
    name = getattr(node.start_mark, "name", None)
    where = name if isinstance(name, str) and name and not name.startswith("<") else label
    return f"{where}:{node.start_mark.line + 1}"


def _scalar(node: Any) -> str | None:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if node.tag.endswith(":null"):
            return None
        return str(node.value)
    return None


def _seq(node: Any) -> list[Any] | None:
    import yaml

    return list(node.value) if isinstance(node, yaml.SequenceNode) else None
