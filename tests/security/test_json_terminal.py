"""The JSON and SARIF reports carry no raw character a terminal obeys: DEL, C1 controls (U+009B is a CSI),
bidi and zero-width format characters from a script reach the output as ``\\uXXXX`` escapes, and the
parsed report holds the very characters the script wrote (the text report shows them as ``\\x9b``-style
text: tests/test_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.render.json_text import safe_for_terminals

MODEL = "/models/x\u009b31m\u202eevil\u200b\x7f"
SCRIPT = f"#!/bin/bash\npython -m sglang.launch_server --model-path '{MODEL}' --tp 2\n"
RAW = ("\x7f", "\u009b", "\u202e", "\u200b")


def test_the_escapes_parse_to_the_same_string() -> None:
    text = json.dumps({"k\u009b": MODEL}, ensure_ascii=False)
    safe = safe_for_terminals(text)
    assert safe == '{"k\\u009b": "/models/x\\u009b31m\\u202eevil\\u200b\\u007f"}'
    assert json.loads(safe) == json.loads(text)


def test_ascii_text_is_returned_as_it_is() -> None:
    text = '{"a": "b\\u001b"}'
    assert safe_for_terminals(text) is text
    # printable non-ASCII is kept as it is (a model name in another script is no control)
    assert safe_for_terminals('"caf\u00e9 \u4e2d\u6587"') == '"caf\u00e9 \u4e2d\u6587"'


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_report_of_a_script_with_terminal_controls(tmp_path: Path, fmt: str) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(SCRIPT, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "argtrace", "check", "--format", fmt, "--no-resolve", str(script)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={"ARGTRACE_WARM": "0", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    assert not [ch for ch in RAW if ch in out.stdout]
    if fmt == "json":
        assert "\\u009b31m\\u202eevil\\u200b\\u007f" in out.stdout
        report = json.loads(out.stdout)
        model = [s for s in report["settings"] if s["flag"] == "--model-path"]
        assert [s["effective"] for s in model] == [MODEL]
    else:  # the CI formats carry the visible form, as the text report does
        assert "/models/x\\\\x9b31m\\\\u202eevil\\\\u200b\\\\x7f" in out.stdout
