"""The batch of Python launches (docs/real_cases.md, "Python launches"), measured before the carrier.

Programs and notebooks that start SGLang or vLLM from Python: ``subprocess`` lists, SGLang's
``launch_server_cmd``/``popen_launch_server``, ``sglang.Engine``/``Runtime``, vLLM's ``LLM``/``EngineArgs``.
Each file under ``tests/data/real_cases_pylaunch/`` names its URL in its first lines (a notebook in its
``argtrace_source`` key) and what was kept or added. Before, ``argtrace check`` read each as bash: SH001
"bash cannot parse" errors and shellcheck warnings (d), or, when bash happened to parse it, "no server start
was found" (c). The machine is a new user's (no resolver environment, no Hugging Face cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check, table_counts, unsourced
from tests.conftest import Launch, alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_pylaunch"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


# correct launches: the server argv argtrace reads from each (None: a value known only at run time)
CORRECT = {
    "basilica261_sglang_model.py": [
        "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-0.5B-Instruct",
        "--host", "0.0.0.0", "--port", "30000", "--mem-fraction-static", "0.8",
    ],
    "sglang_docs_send_request.ipynb": [
        "python3", "-m", "sglang.launch_server", "--model-path", "qwen/qwen2.5-0.5b-instruct",
        "--host", "0.0.0.0", "--log-level", "warning", "--port", None,
    ],
    "sglang_docs_offline_engine_api.ipynb": [
        "python3", "-m", "sglang.launch_server", "--model-path", "qwen/qwen2.5-0.5b-instruct",
    ],
    "sglang_examples_offline_batch_inference.py": [
        "python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct",
    ],
    "sglang_test_torch_compile.py": [
        "python3", "-m", "sglang.launch_server", "--model-path", None, "--enable-torch-compile",
        "--host", None, "--port", None,
    ],
    "vllm_examples_basic.py": ["vllm", "serve", "gg-hf-g/gemma-3-4b-it", "--tensor-parallel-size", "2"],
    "vllm_examples_distributed.py": [
        "vllm", "serve", "meta-llama/Llama-2-7b-chat-hf", "--tensor-parallel-size", "1",
    ],
}  # fmt: skip

# failure reports: class before -> after (a: the cause named; b: near it; c: nothing wrong said; d: wrong)
CLASSES = {
    "xinference2169_attention_reduce_in_fp32.py": ("d", "a"),
    "vllm9398_num_scheduler_steps.py": ("c", "b"),
    "vllm5397_lora_dtype.py": ("d", "c"),
    "vllm787_swap_space.py": ("c", "c"),
}


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, lines=2) == []
    assert sorted(p.name for p in CASES.iterdir()) == sorted([*CORRECT, *CLASSES])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_correct_python_launch_gives_no_error_and_no_warning(name: str) -> None:
    report = check(name)
    assert alarms(report) == []
    assert not [f for f in report["findings"] if f["code"].startswith(("SH", "SC"))]
    assert [s["argv"] for s in report["servers"]] == [CORRECT[name]]


def test_a_value_known_only_at_run_time_is_an_info_that_says_what_it_rests_on() -> None:
    report = check("sglang_test_torch_compile.py")
    notes = [(f["code"], f["severity"], f["at"]) for f in report["findings"] if f["code"] == "TP094"]
    assert notes == [
        ("TP094", "info", "sglang_test_torch_compile.py:19"),
        ("TP094", "info", "sglang_test_torch_compile.py:19"),
    ]
    messages = [f["message"] for f in report["findings"] if f["code"] == "TP094"]
    assert messages[0].startswith("`cls.model` in a Python launch is not known before the program runs")
    assert messages[1].startswith("`cls.base_url` in a Python launch is not known before the program runs")


def test_a_keyword_no_sglang_release_takes_is_pythons_type_error() -> None:
    report = check("xinference2169_attention_reduce_in_fp32.py")
    found = [(f["code"], f["severity"], f["at"]) for f in alarms(report)]
    assert found == [("TP096", "error", "xinference2169_attention_reduce_in_fp32.py:5:47")]
    message = alarms(report)[0]["message"]
    assert message.startswith(
        "sglang.Runtime() is given the keyword `attention_reduce_in_fp32`: ServerArgs of SGLang"
    )
    assert "unexpected keyword argument 'attention_reduce_in_fp32'" in message
    # the other keywords are flags the parser checks
    assert report["servers"][0]["argv"][3:] == [
        "--model-path", None, "--trust-remote-code", "--context-length", "32000", "--tokenizer-mode", "auto",
        "--tp-size", "2", "--mem-fraction-static", "0.87", "--log-level", "info",
    ]  # fmt: skip


def test_a_keyword_of_older_vllm_releases_names_the_releases() -> None:
    report = check("vllm9398_num_scheduler_steps.py")
    assert alarms(report) == []
    notes = {f["code"]: f["message"] for f in report["findings"]}
    assert notes["PA024"] == (
        "--num-scheduler-steps works in vllm 0.9.2 but vllm 0.10.2 no longer accepts it; the script breaks "
        "on upgrade"
    )
    assert "analysed as vllm 0.9.2" in notes["PR011"]


@pytest.mark.parametrize("name", ["vllm5397_lora_dtype.py", "vllm787_swap_space.py"])
def test_a_report_whose_cause_is_not_in_the_call_gets_no_alarm(name: str) -> None:
    assert alarms(check(name)) == []


def test_the_batch_counts() -> None:
    assert table_counts(CLASSES) == ([0, 0, 2, 2], [1, 1, 2, 0])
