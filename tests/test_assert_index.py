"""The assert index (`resolver/assert_index.py`), its generator (`scripts/gen_messages.py --asserts`), its
store and lookups (`resolver/assert_store.py`, `resolver/assert_lookup.py`), on small sources, a real zip
file, and the bundled stores generated from the SGLang and vLLM wheels (docs/why.md "Bare asserts")."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from argtrace.commands.why_traceback import read_traceback, reporting
from argtrace.resolver.assert_index import asserts_of_source, index_wheel, normalize
from argtrace.resolver.assert_lookup import assert_of_traceback, quoted_condition
from argtrace.resolver.assert_store import at_frame, indexed_releases, with_condition

REPO = Path(__file__).resolve().parent.parent

SOURCE = """
class Attention:
    def __init__(self, config, server_args):
        tp_size = get_tensor_model_parallel_world_size()
        self.total_num_kv_heads = config.num_key_value_heads
        self.tp = server_args.tp_size
        if self.total_num_kv_heads >= tp_size:
            assert self.total_num_kv_heads % tp_size == 0
        else:
            assert tp_size % self.total_num_kv_heads == 0
        assert self.tp > 1, f"{self.tp=}"
        assert self.tp > 1, "tp must be greater than one"

def helper(x):
    return x
"""


def test_bare_and_value_only_asserts_are_indexed_with_reads_and_operands() -> None:
    sites = asserts_of_source(SOURCE, "vllm/model.py")
    assert sites == [
        {
            "f": "vllm/model.py",
            "l": 8,
            "fn": "Attention.__init__",
            "c": "self.total_num_kv_heads % tp_size == 0",
            "w": ["self.total_num_kv_heads >= tp_size"],
            "r": ["config.num_key_value_heads", "self.total_num_kv_heads"],
            "a": {"tp_size": "get_tensor_model_parallel_world_size()"},
        },
        {
            "f": "vllm/model.py",
            "l": 10,
            "fn": "Attention.__init__",
            "c": "tp_size % self.total_num_kv_heads == 0",
            "w": ["not (self.total_num_kv_heads >= tp_size)"],
            "r": ["config.num_key_value_heads", "self.total_num_kv_heads"],
            "a": {"tp_size": "get_tensor_model_parallel_world_size()"},
        },
        # prints values only ("self.tp=1"): kept here; the worded one is the message index's
        {
            "f": "vllm/model.py",
            "l": 11,
            "fn": "Attention.__init__",
            "c": "self.tp > 1",
            "w": [],
            "r": ["self.tp", "server_args.tp_size"],
            "m": "f'self.tp={self.tp!r}'",
        },
    ]


def test_a_source_without_asserts_or_not_python_gives_nothing() -> None:
    assert asserts_of_source("x = 1\n", "vllm/a.py") == []
    assert asserts_of_source("assert (\n", "vllm/a.py") == []


def test_normalize_gives_the_index_form() -> None:
    assert normalize("self.tp_size%2==0") == "self.tp_size % 2 == 0"
    assert normalize("(self.being_chunked_req\n   is None)") == "self.being_chunked_req is None"
    assert normalize("is None, related to") is None


def test_index_wheel_reads_the_zip_and_skips_tests(tmp_path: Path) -> None:
    wheel = tmp_path / "vllm-9.9.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/model.py", SOURCE)
        zf.writestr("vllm/tests/test_x.py", "def test_a():\n    assert 1 == 2\n")
        zf.writestr("other/mod.py", "assert other\n")
    assert [(s["f"], s["l"], s["c"]) for s in index_wheel(wheel, "vllm")] == [
        ("vllm/model.py", 8, "self.total_num_kv_heads % tp_size == 0"),
        ("vllm/model.py", 10, "tp_size % self.total_num_kv_heads == 0"),
        ("vllm/model.py", 11, "self.tp > 1"),
    ]


def test_generator_asserts_mode_merges_releases(tmp_path: Path) -> None:
    one = tmp_path / "vllm-9.9.0-py3-none-any.whl"
    two = tmp_path / "vllm-10.0.0-py3-none-any.whl"
    for wheel, pad in ((one, ""), (two, "\n\n")):
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr("vllm/model.py", pad + SOURCE)
    out = tmp_path / "out"
    script = REPO / "scripts" / "gen_messages.py"
    for wheel in (two, one):
        done = subprocess.run(
            [sys.executable, str(script), "--asserts", str(wheel), "--out", str(out)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    store = json.loads(gzip.decompress((out / "vllm.json.gz").read_bytes()))
    assert store["generated_by"] == "scripts/gen_messages.py --asserts"
    assert list(store["releases"]) == ["9.9.0", "10.0.0"]
    assert store["releases"]["9.9.0"]["sites"] == 3
    first = store["sites"][0]
    assert first["c"] == "self.total_num_kv_heads % tp_size == 0"
    assert first["at"] == {"9.9.0": [8], "10.0.0": [10]}  # one site, its line in each release
    check = subprocess.run(
        [
            sys.executable,
            str(script),
            "--asserts",
            "--check",
            "--out",
            str(out),
            "--wheel-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    assert "checked 2 releases, 0 without their wheel at hand, 0 differ" in check.stderr


def test_a_quoted_condition_is_cut_at_the_first_comma_that_leaves_an_expression() -> None:
    text = "[Bug] AssertionError: assert self.being_chunked_req is None, related to `chunked_prefill_size`"
    assert quoted_condition(text) == ("self.being_chunked_req is None", None, None)
    sentence = (
        "Assertion `assert self.chunked_req is None` in line 1839 of python/sglang/srt/managers/scheduler.py "
        "is triggered"
    )
    assert quoted_condition(sentence) == (
        "self.chunked_req is None",
        "sglang/srt/managers/scheduler.py",
        1839,
    )
    assert quoted_condition("the assert failed, see above") is None


def test_a_frame_whose_file_quote_was_cut_is_still_a_frame() -> None:
    text = (
        'vllm/vllm/model_executor/models/chatglm.py", line 53, in __init__\n'
        "    assert self.total_num_kv_heads % tp_size == 0\nAssertionError"
    )
    found = read_traceback(text)
    assert found is not None
    assert (found["state"], found["file"], found["line"], found["function"], found["source"]) == (
        "bare",
        "vllm/model_executor/models/chatglm.py",
        53,
        "__init__",
        "assert self.total_num_kv_heads % tp_size == 0",
    )


def test_a_message_sending_the_reader_above_only_reports() -> None:
    said = (
        "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue."
    )
    assert reporting({"message": said, "fix": "logged unconditionally"})
    assert not reporting({"message": "the KV cache is too small above the limit", "fix": "x"})


# ---- the bundled stores (generated from the real wheels by scripts/gen_messages.py --asserts)


def test_the_bundled_stores_hold_the_newest_releases() -> None:
    assert indexed_releases("sglang")[-1] == "0.5.23"
    assert indexed_releases("vllm")[-1] == "0.33.0"


def test_a_frame_is_found_by_its_line_in_the_release_that_has_it() -> None:
    found = at_frame("vllm", "vllm/model_executor/models/llama.py", 151, "__init__", None)
    assert found and found[0].how == "line"
    assert found[0].site.function == "LlamaAttention.__init__"
    assert found[0].site.condition == "self.total_num_kv_heads % tp_size == 0"
    assert "0.33.0" in found[0].releases


def test_a_condition_is_found_in_both_frameworks_models() -> None:
    found = with_condition("self.total_num_kv_heads % tp_size == 0", "sglang", "sglang/srt/models/llama.py")
    assert [f.site.function for f in found] == ["LlamaAttention.__init__"]


def test_the_log_reads_the_last_frame_of_a_bare_assertion() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py", line 151, '
        "in __init__",
        "    assert self.total_num_kv_heads % tp_size == 0",
        "AssertionError",
    ]
    found = assert_of_traceback(lines)
    assert found is not None
    assert (found["function"], found["how"], found["operands"]) == (
        "LlamaAttention.__init__",
        "line+condition",
        "tp_size = get_tensor_model_parallel_world_size()",
    )
    assert found["settings"] == [{"name": "tp_size", "flag": "--tensor-parallel-size", "how": "named"}]
