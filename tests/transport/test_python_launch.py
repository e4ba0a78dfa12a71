"""The Python-launch carrier (layers/transport/python_launch.py, python_source.py, python_values.py,
python_fields.py): a .py or .ipynb read with ``ast``, its calls written as the shell commands they amount to.

The inputs are small programs in the forms SGLang's and vLLM's docs and users write (the real ones are in
tests/test_real_cases_pylaunch.py); every expected value is exact.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from argtrace.layers.transport.python_fields import keyword_words
from argtrace.layers.transport.python_launch import read_python_launch
from argtrace.layers.transport.python_source import is_python_launch, python_code
from argtrace.layers.transport.python_values import Unknown, Values
from tests.conftest import run_cli


def test_a_python_file_is_told_apart_by_name_shebang_or_by_bash_refusing_it() -> None:
    assert is_python_launch("launch.py", b"echo hi\n")
    assert is_python_launch("run.ipynb", b"{}")
    assert is_python_launch("serve", b"#!/usr/bin/env python3\nimport os\n")
    assert not is_python_launch("serve", b"#!/bin/bash\npython3 -m sglang.launch_server\n")
    # no name, no #!: Python reads it and bash refuses it
    assert is_python_launch("serve", b'import subprocess\nsubprocess.run(["vllm", "serve", "m"])\n')
    # a command both read (a call-free word) stays a script
    assert not is_python_launch("start", b"make\n")
    assert not is_python_launch("start", b"vllm serve m --port 8000\n")
    assert not is_python_launch("start.sh", b'import subprocess\nsubprocess.run(["vllm"])\n')


def test_a_list_built_up_with_literals_is_followed_and_an_environment_read_is_unknown() -> None:
    tree = ast.parse(
        'import os\ncmd = ["vllm", "serve"]\ncmd += ["m"]\ncmd.append("--port")\n'
        'cmd.append(os.environ["PORT"])\nrun(cmd)\ncmd = 3\n'
    )
    value = Values(tree).name("cmd", 6)
    assert value[:4] == ["vllm", "serve", "m", "--port"]
    assert value[4] == Unknown(
        "os.environ['PORT']", "the environment variable PORT of the Python program, read when it runs", 5
    )
    # a name a loop or a parameter sets is unknown at every use
    loop = Values(ast.parse("for tp in (1, 2):\n    run(tp)\n")).name("tp", 2)
    assert isinstance(loop, Unknown)
    assert loop.why == "`tp` is set by code that runs only with the program"
    fstring = Values(ast.parse('m = "Qwen/Qwen3-8B"\nx = f"--model={m}"\n')).name("x", 3)
    assert fstring == "--model=Qwen/Qwen3-8B"


SOURCE = b"""import os, subprocess
import sglang as sgl
from vllm import LLM
from sglang.utils import launch_server_cmd
cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
cmd += ["--tp", "2"]
cmd.append("--port")
cmd.append(os.environ["PORT"])
subprocess.Popen(cmd)
os.system("python -m sglang.launch_server --model-path m --port 30001")
p, port = launch_server_cmd(
    "python -m sglang.launch_server --model-path m --json-model-override-args '{\\"a\\": 1}'"
)
e = sgl.Engine(model_path="m", tp_size=2, disable_radix_cache=True, enable_torch_compile=False)
v = LLM("facebook/opt-125m", tensor_parallel_size=2, enforce_eager=True, chat_template="x")
subprocess.run(["vllm", "serve", "m", "--port", 8000])
subprocess.run("vllm serve m --port 8000")
"""


def test_each_call_becomes_a_shell_command_on_its_own_line() -> None:
    launch = read_python_launch("launch.py", SOURCE, release="0.5.23")
    lines = launch.script.decode().split("\n")
    assert (
        lines[8] == "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
        '--port "${PY_os_environ_PORT}" &'
    )
    # os.system's string is what /bin/sh -c runs, at its own column in the .py
    assert lines[9] == "           python -m sglang.launch_server --model-path m --port 30001"
    # launch_server_cmd is no shell (sglang/utils.py execute_shell_command): quotes stay in the words
    assert lines[10].split(" --json-model-override-args ")[1] == (
        "''\"'\"'{\"a\":' '1}'\"'\"'' --port \"${PY_port}\" &"
    )
    # keywords as the flags of the fields; False of a store_true switch is its default; LLM's own
    # chat_template is no server flag
    assert (
        lines[13].strip()
        == "python3 -m sglang.launch_server --model-path m --tp-size 2 --disable-radix-cache"
    )
    assert lines[14].strip() == "vllm serve facebook/opt-125m --tensor-parallel-size 2 --enforce-eager"
    assert lines[15] == "vllm serve m --port 8000"
    assert lines[16] == ""
    assert launch.unknown == {
        "PY_os_environ_PORT": "the environment variable PORT of the Python program, read when it runs (the "
        "Python value `os.environ['PORT']`, launch.py:8)",
        "PY_port": "the free port launch_server_cmd reserves when it runs (the Python value `port`, "
        "launch.py:11)",
    }
    assert [(f.code, f.severity, f.at) for f in launch.findings] == [
        ("TP094", "info", "launch.py:8"),
        ("TP094", "info", "launch.py:11"),
        ("TP097", "error", "launch.py:16:16"),
        ("TP097", "error", "launch.py:17:16"),
    ]
    assert launch.findings[2].message == (
        "subprocess.run() is given argv items that are not strings (8000): Python raises `TypeError: "
        "expected str, bytes or os.PathLike object, not int` before the server starts"
    )
    assert launch.calls[4] == {
        "at": "launch.py:15:5",
        "call": "vllm.LLM",
        "keywords": ["model", "tensor_parallel_size", "enforce_eager"],
        "not_flags": ["chat_template"],
        "shell": "vllm serve facebook/opt-125m --tensor-parallel-size 2 --enforce-eager",
    }


def test_a_keyword_the_class_does_not_take_is_pythons_type_error() -> None:
    dashed = keyword_words("sglang", "Engine", "tensor-parallel-size", 2, None)
    assert dashed.severity == "error"
    assert dashed.refused is not None and dashed.refused.startswith(
        "ServerArgs of SGLang 0.5.23 has no field tensor-parallel-size"
    )
    assert dashed.fix == "Write tensor_parallel_size: a keyword is the field's own name, with underscores"
    nowhere = keyword_words("vllm", "LLM", "tensor_parallel", 2, None)
    assert nowhere.refused == (
        "EngineArgs of vLLM 0.33.0 has no field tensor_parallel (nor has any bundled release's command line, "
        "0.6.6.post1-0.33.0), so Python raises `TypeError: EngineArgs.__init__() got an unexpected keyword "
        "argument 'tensor_parallel'` before anything starts"
    )
    # a field an older bundled release has: the flag goes to the parser, which names the releases
    older = keyword_words("vllm", "LLM", "num_scheduler_steps", 8, None)
    assert (older.refused, older.words) == (None, ["--num-scheduler-steps", "8"])
    # ... unless the user named the release whose class lacks it
    named = keyword_words("vllm", "LLM", "num_scheduler_steps", 8, "0.33.0", named=True)
    assert named.severity == "error" and named.refused is not None
    assert keyword_words("sglang", "Engine", "tp_size", 2, None).words == ["--tp-size", "2"]


def test_a_call_whose_keywords_are_not_readable_is_said_so() -> None:
    launch = read_python_launch(
        "launch.py", b"import json, sglang\nkw = json.load(open('e.json'))\nsglang.Engine(**kw)\n"
    )
    assert launch.script == b"\n"
    assert [(f.code, f.severity, f.at) for f in launch.findings] == [("TP095", "info", "launch.py:3:1")]
    assert launch.findings[0].message == (
        "sglang.Engine() takes its keywords from `**kw` (what `json.load(...)` returns when the program "
        "runs): argtrace cannot read what it starts, so a server it starts is not checked"
    )


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Serve\n"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "source": [
                "%pip install sglang\n",
                "!python -m sglang.launch_server --model-path m --tp 2 &\n",
                "x = 1",
            ],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "source": ["%%bash\n", "vllm serve m --port 8000\n"],
        },
    ],
    "nbformat": 4,
    "nbformat_minor": 2,
}


def test_a_notebooks_cells_keep_their_lines_in_the_json_file() -> None:
    data = (json.dumps(NOTEBOOK, indent=1) + "\n").encode()
    lines = data.decode().splitlines()
    code = python_code("serve.ipynb", data)
    escape_line = next(i for i, line in enumerate(lines, 1) if "!python" in line)
    bash_line = next(i for i, line in enumerate(lines, 1) if "vllm serve" in line)
    assert code.notebook and code.cells == 2
    assert code.shell == [
        (escape_line, 1, "python -m sglang.launch_server --model-path m --tp 2 &"),
        (bash_line, 0, "vllm serve m --port 8000"),
    ]
    # the magic is blank, the escape is `pass`, the Python stays on its line
    assert code.text.splitlines()[escape_line - 1] == "pass"
    assert code.text.splitlines()[escape_line] == "x = 1"


def test_check_reads_a_python_launch_without_bash_errors(tmp_path: Path) -> None:
    (tmp_path / "launch.py").write_text(
        "import subprocess\n"
        'subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"])\n'
    )
    result = run_cli(["check", "--no-resolve", "--format", "json", "launch.py"], cwd=tmp_path)
    report = result.json
    assert [(f["code"], f["severity"], f["at"]) for f in report["findings"]] == [
        ("PR011", "info", "launch.py:2:1"),
        ("PA007", "info", "launch.py:2:48"),
    ]
    assert report["servers"][0]["argv"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "m",
        "--tp",
        "2",
    ]
    assert report["python"]["calls"] == [
        {
            "at": "launch.py:2:1",
            "call": "subprocess.Popen",
            "shell": "python3 -m sglang.launch_server --model-path m --tp 2",
        }
    ]


def test_each_unknown_value_is_named_once_and_apart_from_a_longer_name() -> None:
    launch = read_python_launch(
        "launch.py",
        b"import sglang\nsglang.Engine(model_path=model, tokenizer_path=model_path)\n"
        b"sglang.Engine(model_path=model)\n",
    )
    assert [(f.code, f.at, f.message.split("`")[1]) for f in launch.findings] == [
        ("TP094", "launch.py:2", "model"),
        ("TP094", "launch.py:2", "model_path"),
        ("TP094", "launch.py:3", "model"),
    ]


FSTRING_NAME = b"""import os
import subprocess

model = os.environ.get("MODEL", "meta-llama/Llama-3.1-8B-Instruct")
tp = os.getenv("TP", "2")
cmd = f"python -m sglang.launch_server --model-path {model} --tp-size {tp} --port 30000"
subprocess.run(cmd, shell=True, check=True)
"""


def test_a_shell_string_named_once_is_its_fstring_with_the_unknown_fields_as_placeholders() -> None:
    launch = read_python_launch("launch.py", FSTRING_NAME, release="0.5.23")
    lines = launch.script.decode().split("\n")
    assert lines[6].strip() == (
        "python -m sglang.launch_server --model-path ${PY_os_environ_get_MODEL} --tp-size ${PY_os_getenv_TP} "
        "--port 30000"
    )
    assert sorted(launch.unknown) == ["PY_os_environ_get_MODEL", "PY_os_getenv_TP"]
    # written twice, or under an `if` the program decides: no one text, the command stays unread
    twice = FSTRING_NAME.replace(b"subprocess.run(", b'cmd = f"{cmd} --tp {tp}"\nsubprocess.run(')
    guarded = FSTRING_NAME.replace(b'cmd = f"', b'if os.environ.get("X"):\n    cmd = f"')
    for source in (twice, guarded):
        script = read_python_launch("launch.py", source, release="0.5.23").script.decode()
        assert "sglang.launch_server" not in script
