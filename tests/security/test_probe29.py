"""Session 29's fuzzers of the readers of session 28 (docs/reliability.md "Session 29 (safe29)"): the exact
outcomes of each fix. The cases themselves are reproducers under tests/fuzz/reproducers/
(``leak-python-list-under-if``, ``compose-many-env-file-findings``)."""

from __future__ import annotations

import json
from pathlib import Path

from argtrace.layers.transport.envfiles import EnvFile, parse_compose_env_file
from argtrace.layers.transport.python_launch import read_python_launch
from argtrace.redact import Redactor
from argtrace.secret_detection import mask, redact_text, secrets_in_text
from tests.conftest import run_cli

PY_IF = """import os
import subprocess
import sys

cmd = ['python3', '-m', 'sglang.launch_server', '--model-path', 'm']
if len(sys.argv) > 1:
    cmd += ['--api-key', 'pwRY62S2IqtTug']
else:
    cmd += ['--x0', str(0)]
os.system(' '.join(cmd) + ' --port ' + os.environ['PORT'])
"""


def test_a_quoted_flag_then_a_quoted_item_is_a_secret_value() -> None:
    # before: `'--api-key', 'pw...'` had no name before the value (a flag is followed by a blank or `=`)
    assert (
        redact_text("cmd += ['--api-key', 'pwRY62S2IqtTug']")
        == f"cmd += ['--api-key', '{mask('pwRY62S2IqtTug')}']"
    )
    assert (
        redact_text('["--api-key", "Zq7ab12", "--port", "1"]')
        == f'["--api-key", "{mask("Zq7ab12")}", "--port", "1"]'
    )
    assert secrets_in_text("['--host', 'h1', '--api-key',  \"pw9\"]") == {"pw9"}
    # an item starting with `-` is the next flag; a bare name after the flag is a Python variable
    assert redact_text("['--api-key', '--port', '1']") == "['--api-key', '--port', '1']"
    assert secrets_in_text("['--api-key', API_KEY]") == set()
    redactor = Redactor()
    redactor.learn_source(PY_IF)
    assert redactor.text("${PY_x}: pwRY62S2IqtTug") == f"${{PY_x}}: {mask('pwRY62S2IqtTug')}"


def test_a_python_value_is_named_after_its_names_and_flags_never_its_literals() -> None:
    # before: the list grown under the `if` became ${PY_api_key_pwRY62S2IqtTug}, cut at 40 characters where
    # the value was longer (a head of the secret no whole value masks)
    launch = read_python_launch("serve.py", PY_IF.encode(), release="0.5.23")
    assert sorted(launch.unknown) == ["PY_api_key", "PY_x0_str_0"]
    assert "pwRY62S2IqtTug" not in launch.script.decode()


def test_an_env_file_of_many_lines_reads_each_line_and_precedence_once() -> None:
    # the values pinned by a fix whose defect was time: each ${VAR} copied every value read so far and counted
    # the lines from the file's start
    text = "A=1\n" + "B=${A}${C}\n" * 3 + "C=\nD=${C:-d}${E}\n"
    parsed = EnvFile("x.env", "compose.yaml:5")
    parse_compose_env_file(text, {"E": "e"}, parsed, earlier={"A": "0", "C": "early", "Z": None})
    assert parsed.values == {"A": "1", "B": "1early", "C": "", "D": "de"}
    assert parsed.unset == []
    hidden = EnvFile("y.env", "compose.yaml:6")
    parse_compose_env_file("X=${Z}\n\n\nY=${Z}${W}\n", {}, hidden, earlier={"Z": None})
    assert hidden.unset == [("Z", 1), ("Z", 4), ("W", 4)]


def test_an_unset_name_is_one_finding_and_many_names_share_one(tmp_path: Path) -> None:
    # before: one TP012 per line (50,000 for a file of `A=${B}` lines: minutes in the causes' pass)
    (tmp_path / "compose.yaml").write_text(
        "services:\n  srv:\n    image: lmsysorg/sglang:v0.5.9\n    env_file: [x.env]\n"
        "    command: python3 -m sglang.launch_server --model-path m\n"
    )
    lines = [f"A{i}=${{B}}" for i in range(6)] + [f"N{i}=${{U{i}}}" for i in range(23)]
    (tmp_path / "x.env").write_text("\n".join(lines) + "\n")
    out = run_cli(["check", "--no-resolve", "--format", "json", "compose.yaml"], cwd=tmp_path)
    tp012 = [f for f in json.loads(out.stdout)["findings"] if f["code"] == "TP012"]
    looked = (
        "the environment argtrace was given, the .env file, the service's environment or the env file "
        "above it"
    )
    tail = "if it is unset where `docker compose` runs too, compose substitutes an empty string"
    assert [(f["at"], f["message"]) for f in tp012[:2]] == [
        (
            "x.env:1",
            f"${{B}} in x.env (also lines 2, 3, 4 and 2 more) (env_file of service srv) is not set in "
            f"{looked}: {tail}",
        ),
        (
            "x.env:7",
            f"${{U0}} in x.env (env_file of service srv) is not set in {looked}: {tail}",
        ),
    ]
    assert len(tp012) == 21
    assert tp012[-1]["at"] == "x.env:26"
    assert tp012[-1]["message"] == (
        f"4 more variables in x.env (env_file of service srv) are not set in {looked} (${{U19}}, ${{U20}}, "
        "${U21}, ${U22}): if they are unset where `docker compose` runs too, compose substitutes empty "
        "strings"
    )


def test_a_report_re_checks_a_bounded_number_of_fixes_and_leaves_the_rest_unverified(tmp_path: Path) -> None:
    # before: each fixable finding re-checked the whole launch (a Markdown page of 2,000 blocks: hours)
    from argtrace.fixes.verify import MAX_RECHECKS

    (tmp_path / "serve.sh").write_text("#!/bin/bash\n" + "vllm serve m\n  --port 8001\n" * 40)
    out = run_cli(["check", "--no-resolve", "--format", "json", "serve.sh"], cwd=tmp_path)
    verdicts = [f["fix_verified"] for f in json.loads(out.stdout)["findings"] if f["code"] == "SH004"]
    assert verdicts == [True] * MAX_RECHECKS + [False] * (40 - MAX_RECHECKS)
