"""`why` on Python's TypeError at the classes the frameworks build their command lines from (vLLM's
``EngineArgs``/``AsyncEngineArgs``, SGLang's ``ServerArgs``): the refused keyword placed by the bundled
releases (commands/why_call.py ``engine_keyword``), and the generated list of vLLM's OpenAI-server options
(scripts/gen_frontend_options.py).

The interpreter's wording is produced here by a real call (a dataclass refusing a keyword given with ``**``),
so a form that changes turns a test red.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_call import call_error, engine_keyword
from tests.conftest import REPO


@dataclasses.dataclass
class EngineArgs:  # the name is what the interpreter prints; the fields do not matter
    model: str = ""


def _refused(keyword: str) -> str:
    try:
        EngineArgs(**{keyword: 1})  # type: ignore[arg-type]
    except TypeError as e:
        return f"TypeError: {e}"
    raise AssertionError("accepted")


def test_the_interpreter_quotes_a_hyphenated_keyword_as_given() -> None:
    text = _refused("max-model-len")
    assert text.endswith("EngineArgs.__init__() got an unexpected keyword argument 'max-model-len'")
    found = call_error(text)
    assert found is not None and found["argument"] == "max-model-len"


def test_a_hyphenated_keyword_is_the_field_s_command_line_spelling() -> None:
    placed = engine_keyword("EngineArgs.__init__", "max-model-len")
    assert placed is not None
    assert placed["fix"] == (
        "write max_model_len instead of max-model-len where the option is handed to EngineArgs (as a "
        "keyword, a "
        "configuration key or an extra engine argument)"
    )


def test_sglang_s_server_args_take_the_same_reading() -> None:
    placed = engine_keyword("ServerArgs.__init__", "mem-fraction-static")
    assert placed is not None and placed["fix"].startswith("write mem_fraction_static instead of")


def test_a_server_option_is_never_the_engine_s() -> None:
    placed = engine_keyword("AsyncEngineArgs.__init__", "api_key")
    assert placed is not None
    assert placed["meaning"].endswith(
        "api_key is an option of vLLM's OpenAI server (`vllm serve --api-key`), not a field of the engine's "
        "arguments: no vLLM release's AsyncEngineArgs takes it, with either spelling"
    )


def test_an_alias_s_name_is_not_a_field() -> None:
    # --device-memory-utilization is an alias whose dest is gpu_memory_utilization
    placed = engine_keyword("EngineArgs.__init__", "device_memory_utilization")
    assert placed is not None and placed["meaning"].split(": ")[1].startswith(
        "no bundled vLLM release (0.6.6.post1-0.33.0) has a field device_memory_utilization"
    )


def test_another_class_is_not_placed() -> None:
    assert engine_keyword("VLLMModelConfig.__init__", "gpu_memory_utilization") is None
    assert engine_keyword("Worker.__init__", "kv_cache_dtype") is None


def test_an_address_prefix_and_a_server_error_prefix_do_not_hide_the_call() -> None:
    """xinference's `[address=..., pid=...]` and `Server error: 500 - `: before, SGLang sites sharing words
    were ranked first (rank_consensus 0.76, CommonKVBootstrapServer 1.00)."""
    section = explain(
        "Server error: 500 - [address=0.0.0.0:46149, pid=156] AsyncEngineArgs.__init__() got an unexpected "
        "keyword argument 'max-num-seqs'"
    )
    assert section["matches"] == []
    assert section["call"]["fix"].startswith("write max_num_seqs instead of max-num-seqs")


@pytest.mark.parametrize("script", ["gen_frontend_options.py"])
def test_the_frontend_list_is_what_the_schemas_say(script: str) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_python_3_9_s_wording_takes_the_class_from_the_quoted_source_line() -> None:
    """Python 3.9 and older print `__init__() got ...` (no class): the source line above it names the call
    (LlamaFactory#6654's two lines); without such a line the call stays `__init__`."""
    quoted = (
        "    self.engine = Engine(AsyncEngineArgs(**engine_args))\nTypeError: __init__() got an unexpected "
    )
    found = call_error(quoted + "keyword argument 'max-model-len'")
    assert found is not None and found["callee"] == "AsyncEngineArgs.__init__"
    assert found["fix"].startswith("write max_model_len instead of max-model-len")
    alone = call_error("TypeError: __init__() got an unexpected keyword argument 'max-model-len'")
    assert alone is not None and alone["callee"] == "__init__" and "basis" not in alone


def test_a_deprecated_option_is_not_counted_as_a_field() -> None:
    """vLLM 0.10.2-0.16.0 list --disable-log-requests as deprecated while the field is enable_log_requests
    (LlamaFactory#9503 on 0.11.0): those releases are named apart, never as having the field."""
    placed = engine_keyword("AsyncEngineArgs.__init__", "disable_log_requests")
    assert placed is not None
    assert "vLLM 0.6.6.post1-0.9.2 know the field disable_log_requests" in placed["meaning"]
    assert "0.10.2-0.16.0 keep --disable-log-requests as a deprecated option" in placed["meaning"]
    # the releases without the field have its opposite (0.10.2 on): the fix replaces it before it downgrades
    assert placed["fix"] == (
        "replace disable_log_requests by enable_log_requests with the opposite value where the options are "
        "handed to AsyncEngineArgs (or leave both out for the new default), or install a vLLM release that "
        "has disable_log_requests (0.6.6.post1-0.9.2)"
    )
