"""Compose files and Kubernetes manifests as hostile YAML: deep nesting, syntax errors near a secret, aliases.

Through the real CLI (``argtrace check FILE``) and ``yamlnodes._load_yaml_nodes``: nothing here may crash
argtrace, print the file's text, or take long.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.yamlnodes import MAX_YAML_DEPTH, _load_yaml_nodes
from argtrace.model import UsageError
from tests.conftest import run_cli

TOKEN = "hf_" + "Zx4" * 10
COMPOSE_HEAD = "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n"
    "    - name: vllm\n      image: vllm/vllm-openai:latest\n      args: [Qwen/Qwen3-8B, --port, '8000']\n"
)


def nested(depth: int) -> str:
    """A flow list nested ``depth`` levels deep."""
    return "[" * depth + "]" * depth


def check(tmp_path: Path, name: str, text: str) -> Any:
    (tmp_path / name).write_text(text)
    return run_cli(["check", "--format", "json", "--no-shellcheck", "--no-resolve", name], cwd=tmp_path)


# ------------------------------------------------------------------------------------------ deep nesting


def test_a_compose_list_nested_1000_deep_is_one_line_of_error(tmp_path: Path) -> None:
    # before: "internal error: RecursionError: maximum recursion depth exceeded"
    result = check(tmp_path, "compose.yaml", COMPOSE_HEAD + f"    command: {nested(1000)}\n")
    assert result.status == 2
    # PyYAML's scanner stops at the 101st `[` (column 14 + 100), before its composer recursed that deep
    assert result.stderr == (
        "argtrace check: compose.yaml:4:114: the document nests deeper than 100 levels: argtrace cannot "
        "read it, and the file has no other document\n"
    )
    assert result.stdout == ""


def test_a_block_style_list_nested_1000_deep_is_one_line_of_error(tmp_path: Path) -> None:
    lines = [COMPOSE_HEAD.rstrip("\n"), "    command:"]
    lines += ["      " + "  " * i + "-" for i in range(1000)]
    result = check(tmp_path, "compose.yaml", "\n".join(lines) + "\n")
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: compose.yaml:102:201: the document nests deeper than 100 levels: argtrace cannot "
        "read it, and the file has no other document\n"
    )


def test_a_deep_kubernetes_document_is_skipped_and_the_next_one_is_analysed(tmp_path: Path) -> None:
    deep = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: generated}\n"
    deep += f"data: {{layout: {nested(1000)}}}\n"
    result = check(tmp_path, "pod.yaml", deep + "---\n" + POD)
    assert result.status == 0, result.stderr
    report = result.json
    tp018 = [f for f in report["findings"] if f["code"] == "TP018"]
    # the 101st flow collection (`{` and 100 `[`) is the 100th `[`: column 16 + 99
    assert [(f["severity"], f["at"], f["message"]) for f in tp018] == [
        (
            "warning",
            "pod.yaml:4:115",
            "the document nests deeper than 100 levels here: argtrace skipped this document and read the "
            "others, so a container it declares is not checked",
        )
    ]
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]]
    assert [h["container"] for h in report["transport"]["hops"]] == ["vllm"]


def test_documents_after_two_deep_ones_are_read(tmp_path: Path) -> None:
    deep = f"apiVersion: v1\nkind: ConfigMap\ndata: {{a: {nested(5000)}}}\n"
    documents = _load_yaml_nodes((deep + "---\n" + deep + "---\n" + POD).encode(), "m.yaml")
    assert documents.skipped == [
        ("m.yaml:3:110", "the document nests deeper than 100 levels"),
        ("m.yaml:7:110", "the document nests deeper than 100 levels"),
    ]
    assert [n.start_mark.line + 1 for n in documents.nodes] == [9]


def test_the_depth_limit_is_exact() -> None:
    # the root mapping and its value: depth 2, so a list nested MAX_YAML_DEPTH - 1 deep is the last one read
    fits = _load_yaml_nodes(f"a: {nested(MAX_YAML_DEPTH - 1)}\n".encode(), "f.yaml")
    assert (len(fits.nodes), fits.skipped) == (1, [])
    over = _load_yaml_nodes(f"a: {nested(MAX_YAML_DEPTH)}\n".encode(), "f.yaml")
    assert (over.nodes, over.skipped) == ([], [("f.yaml:1:103", "the document nests deeper than 100 levels")])


def test_a_recursion_error_inside_pyyaml_skips_the_document_too() -> None:
    """Called near Python's recursion limit, PyYAML's composer fails before argtrace's own limit: the
    document is skipped the same way and the next one is read."""
    text = f"a: {nested(80)}\n---\nb: 1\n".encode()

    def at_depth(n: int) -> Any:
        return at_depth(n - 1) if n else _load_yaml_nodes(text, "f.yaml")

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        documents = at_depth(100)
    finally:
        sys.setrecursionlimit(limit)
    assert len(documents.skipped) == 1
    where, why = documents.skipped[0]
    assert where.startswith("f.yaml:1:") and why == "the document nests deeper than 100 levels"
    assert [n.value[0][0].value for n in documents.nodes] == ["b"]


def test_nesting_100_000_deep_is_refused_quickly(tmp_path: Path) -> None:
    # PyYAML's scanner and parser are not recursive: the cost is linear in the text
    start = time.monotonic()
    result = check(tmp_path, "compose.yaml", COMPOSE_HEAD + f"    command: {nested(100_000)}\n")
    elapsed = time.monotonic() - start
    assert result.status == 2 and "compose.yaml:4:114: the document nests deeper than 100" in result.stderr
    assert elapsed < 20, elapsed


# ------------------------------------------------------------------------------------------ syntax errors


def test_a_syntax_error_names_file_line_column_and_never_the_line(tmp_path: Path) -> None:
    # before: PyYAML's message quoted the line (`HF_TOKEN: hf_...: bad`) and drew a caret under it
    text = COMPOSE_HEAD + f"    environment:\n      HF_TOKEN: {TOKEN}: bad\n"
    result = check(tmp_path, "compose.yaml", text)
    assert result.status == 2
    assert result.stderr == (
        # the `:` after the token (column 17 + 33)
        "argtrace check: compose.yaml:5:50: not valid YAML: mapping values are not allowed here\n"
    )
    assert TOKEN not in result.stderr + result.stdout


def test_a_syntax_error_with_context_says_where_the_construct_started(tmp_path: Path) -> None:
    text = COMPOSE_HEAD + f"    command: [--api-key, {TOKEN}\n"
    result = check(tmp_path, "compose.yaml", text)
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: compose.yaml:5:1: not valid YAML: expected ',' or ']', but got '<stream end>' "
        "(while parsing a flow sequence that starts at 4:14)\n"
    )
    assert TOKEN not in result.stderr


def test_an_unterminated_quote_in_a_manifest(tmp_path: Path) -> None:
    text = POD.replace("args: [Qwen/Qwen3-8B, --port, '8000']", f"args: ['--api-key={TOKEN}]")
    result = check(tmp_path, "pod.yaml", text)
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: pod.yaml:9:1: not valid YAML: found unexpected end of stream "
        "(while scanning a quoted scalar that starts at 8:14)\n"
    )
    assert TOKEN not in result.stderr


def test_a_control_character_is_named_by_its_code_and_position(tmp_path: Path) -> None:
    text = COMPOSE_HEAD + f"    environment:\n      HF_TOKEN: {TOKEN}\x07\n"
    result = check(tmp_path, "compose.yaml", text)
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: compose.yaml:5:50: not valid YAML: special characters are not allowed (#x0007)\n"
    )
    assert TOKEN not in result.stderr


def test_a_syntax_error_is_a_usage_error_with_the_same_text() -> None:
    with pytest.raises(UsageError) as caught:
        _load_yaml_nodes(f"a: [{TOKEN}\n".encode(), "x.yaml")
    assert str(caught.value) == (
        "x.yaml:2:1: not valid YAML: expected ',' or ']', but got '<stream end>' "
        "(while parsing a flow sequence that starts at 1:4)"
    )
    # nothing of PyYAML's own message travels along (it would quote the line)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


# ------------------------------------------------------------------------------------------ aliases


def test_an_alias_bomb_finishes_fast(tmp_path: Path) -> None:
    # nine levels of nine aliases: 9**9 (387 million) strings if expanded; composed nodes share them
    lines = ["x-bomb:", "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 10):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    text = "\n".join(lines) + "\n" + COMPOSE_HEAD + "    command: *a9\n"
    start = time.monotonic()
    result = check(tmp_path, "compose.yaml", text)
    elapsed = time.monotonic() - start
    assert result.status in (0, 1), result.stderr
    assert elapsed < 10, elapsed
    hop = result.json["transport"]["hops"][0]
    # the command list's items are lists, not words: none is an argv word
    # (the image's entrypoint stays: vllm/vllm-openai's `vllm serve`)
    assert (hop["service"], hop["command"], hop["argv"]) == ("vllm", [], ["vllm", "serve"])
    assert [s["argv"] for s in result.json["servers"]] == [["vllm", "serve"]]


def test_a_recursive_alias_does_not_loop(tmp_path: Path) -> None:
    text = COMPOSE_HEAD + "    command: &loop [vllm, *loop]\n"
    result = check(tmp_path, "compose.yaml", text)
    assert result.status in (0, 1), result.stderr
    assert result.json["transport"]["hops"][0]["command"] == ["vllm"]
