"""Small inputs that hung argtrace or made it die, found by the probe of session 13 (docs/reliability.md
"Campaign 13"). Each runs in a subprocess with a generous timeout: a pattern gone quadratic again, or an
evaluation without a bound, fails the test (by timeout or by the exact outcome) instead of hanging it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1", "ARGTRACE_NO_CACHE": "1"}


def argtrace(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argtrace", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("call", "text"),
    [
        # before: over 120 s each (every start of the run, every backtrack)
        ("argtrace.commands.why_call:call_error", "'x' * 110_000 + '!'"),
        ("argtrace.commands.why_unrecognized:origin_of_parser", "'x' * 110_000 + '!'"),
        ("argtrace.commands.why_choice:invalid_choice_site", "'a.b' * 36_000 + '!'"),
    ],
)
def test_why_reads_a_long_run_of_name_characters_once(call: str, text: str) -> None:
    module, name = call.split(":")
    assert python(f"from {module} import {name}\nprint({name}({text}))") == "None"


def test_a_long_dotted_run_is_no_exception_class() -> None:
    code = (
        "import re\nfrom argtrace.commands.why_confidence import _QUALIFIED\n"
        "print(re.search(_QUALIFIED, 'a.b' * 36_000 + '!'),"
        " re.search(_QUALIFIED, 'x: torch.cuda.OutOfMemoryError')[0])"
    )
    assert python(code) == "None torch.cuda.OutOfMemoryError"


def test_a_line_of_dashes_is_read_once(tmp_path: Path) -> None:
    # before: LG006's `(?P<flag>--[\w-]+) ... deprecated` took 4 s on 10 KB of dashes, over 30 s on 100 KB
    log = tmp_path / "server.log"
    dashes = "sglang-1  | " + "-" * 100_000 + " x is deprecated\n"
    log.write_text(dashes + "sglang-1  | --enable-foo is deprecated\n")
    done = argtrace(["log", "--format", "json", str(log)], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert "LG006" in {f["code"] for f in report["findings"]}


def test_a_deeply_nested_pyproject_is_a_usage_error(tmp_path: Path) -> None:
    # before: every command run in that directory died with "internal error: RecursionError"
    (tmp_path / "pyproject.toml").write_text("[tool.argtrace]\nx = " + "[" * 50_000 + "]" * 50_000 + "\n")
    done = argtrace(
        ["check", "--no-resolve", "-c", "python3 -m sglang.launch_server --model-path m"], tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"argtrace check: {tmp_path / 'pyproject.toml'}: not readable TOML (values nested too deep)"
    )


def test_a_doubling_variable_stops_at_a_bound(tmp_path: Path) -> None:
    # before: X=$X$X 64 times grew the string until memory ran out (past 60 s)
    script = tmp_path / "launch.sh"
    script.write_text(
        "X=a\n" + "X=$X$X\n" * 64 + "python3 -m sglang.launch_server --model-path $X --tp-size 2\n"
    )
    done = argtrace(["check", "--no-resolve", "--no-shellcheck", "--format", "json", str(script)], tmp_path)
    report = json.loads(done.stdout)
    [word] = [w for w in report["servers"][0]["words"] if w.get("expansion") == "$X"]
    assert word["known"] is False
    assert word["reason"] == (
        "the word expands to more than 1,048,576 bytes (unquoted: it may also split into several words)"
    )


def test_the_expansion_budget_stops_an_evaluation(tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    # X is 512 KiB (under the 1 MiB of one word); each Y=$X$X expands 1 MiB, 20 of them pass the budget
    text = "X=a\n" + "X=$X$X\n" * 19 + f"for i in {' '.join(map(str, range(20)))}; do Y=$X$X; done\n"
    text += "python3 -m sglang.launch_server\n"
    script.write_text(text)
    done = argtrace(["check", "--no-resolve", "--no-shellcheck", "--format", "json", str(script)], tmp_path)
    [message] = [f["message"] for f in json.loads(done.stdout)["findings"] if f["code"] == "SH029"]
    budget = 8 * 1024 * 1024 + 4 * len(text)
    assert message.startswith(f"argtrace stopped evaluating at {script}:21:")
    assert message.endswith(
        f" steps (its budget of {budget:,} expanded bytes); what comes after is not followed"
    )


def test_nested_compose_defaults_are_read_to_a_depth(tmp_path: Path) -> None:
    # before: 5,000 nested `${X:-...}` in a compose command died with RecursionError
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  s:\n    image: lmsysorg/sglang:v0.5.4\n    command: python3 -m sglang.launch_server "
        "--model-path " + "${X:-" * 5000 + "v" + "}" * 5000 + " --tp-size 2\n"
    )
    done = argtrace(["check", "--no-resolve", "--no-shellcheck", "--format", "json", str(compose)], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "internal error" not in done.stderr


def test_a_wrapped_message_in_a_long_paste_is_searched_line_by_line() -> None:
    # before: the lazy placeholders took minutes over an 80 KB paste of parentheses (40 KB: 38 s)
    code = (
        "from argtrace.commands.why_wrapped import inner_message\n"
        "tpl = '{x} failed: {y} ({z})'\n"
        "print(inner_message(tpl, '(' * 40_000 + ')' * 40_000))\n"
        "line = 'Worker failed with error: the MLA kernel needs bfloat16 inputs here, please check'\n"
        "print(inner_message('Worker failed with error: {e}, please check', 'x' * 3000 + '\\n' + line))\n"
    )
    assert python(code).splitlines() == ["None", "the MLA kernel needs bfloat16 inputs here"]
