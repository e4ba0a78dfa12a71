"""The harness's classes, each produced by a real CLI run that shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.generators import DIR, Case
from tests.fuzz.harness import classify, leak_context, run_case

# Real CLI runs (about 30 s in all): part of the fuzz story, selected with it by `-m fuzz`.
pytestmark = pytest.mark.fuzz

LAUNCH = b"#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --port 30000\n"


def test_a_plain_launch_is_ok() -> None:
    out = run_case(Case("script", "plain", {"launch.sh": LAUNCH}, ["check", "--no-resolve", "launch.sh"]))
    assert (out.cls, out.signature, out.status) == ("ok", "ok", 0)


def test_a_missing_script_is_a_usage_error() -> None:
    out = run_case(Case("script", "missing", {}, ["check", "--no-resolve", "nothere.sh"]))
    assert out.cls == "usage-error"
    assert out.status == 2
    assert out.stderr.decode().startswith("argtrace check: ")


def test_show_secrets_is_seen_as_a_leak() -> None:
    secret = "Zq7abcdefghijklmnopqrstuvwx"
    script = f"#!/bin/bash\nexport HF_TOKEN={secret}\npython3 -m sglang.launch_server --port 1\n".encode()
    argv = ["check", "--no-resolve", "--no-shellcheck", "--show-secrets", "launch.sh"]
    out = run_case(Case("script", "shown", {"launch.sh": script}, argv, secrets=[secret]))
    assert out.cls == "LEAK"
    assert out.signature.startswith("LEAK script after ")
    # Without --show-secrets the same script masks it.
    argv.remove("--show-secrets")
    assert run_case(Case("script", "masked", {"launch.sh": script}, argv, secrets=[secret])).cls == "ok"


def test_run_executes_the_script_so_its_marker_appears() -> None:
    # `argtrace run` executes the launch by design: the one command whose marker must appear.
    script = f"#!/bin/bash\ntouch {DIR}/MARK_run_x\npython3 -m sglang.launch_server --port 1\n".encode()
    out = run_case(Case("script", "run", {"launch.sh": script}, ["run", "launch.sh"], markers=["MARK_run_x"]))
    assert "EXECUTED" in out.classes
    assert "EXECUTED script via run" in out.signature


def test_a_timeout_is_a_hang() -> None:
    out = run_case(Case("script", "slow", {"launch.sh": LAUNCH}, ["check", "launch.sh"]), timeout=0.05)
    assert (out.cls, out.status) == ("HANG", None)
    # Stopped before argtrace's own code runs, the dump names no argtrace frame: the signature is bare.
    assert out.signature.startswith("HANG script")


def test_a_hang_is_signed_by_where_it_was_stuck() -> None:
    # A server that accepts the connection (the kernel's backlog does) and never answers, with a request
    # deadline far beyond the harness's timeout: argtrace is still waiting when the harness signs it.
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        out = run_case(Case("live", "stuck", {}, ["live", url, "--timeout", "600"]), timeout=3.0)
    assert out.cls == "HANG"
    assert out.signature.startswith("HANG live in "), out.signature


def test_classify_internal_error_and_escape(tmp_path: Path) -> None:
    case = Case("log", "x", {}, ["log", "server.log"])
    err = b"argtrace log: internal error: EOFError: boom\n(set ARGTRACE_DEBUG=1 for the traceback)\n"
    classes, sig = classify(case, tmp_path, 2, b"", err)
    assert classes[0] == "INTERNAL"
    assert sig.startswith("INTERNAL ")
    classes, sig = classify(case, tmp_path, 0, b"title \x1b]0;x\x07\n", b"")
    assert (classes, sig) == (["ESCAPE"], "ESCAPE log b'\\x1b'")


def test_leak_context_hides_the_secret_and_long_words() -> None:
    out = b'"env": {"HF_TOKEN": "Zq7abcdefghijklmnopqrstuvwx"'
    assert leak_context("Zq7abcdefghijklmnopqrstuvwx", out) == 'after \'"env": {"HF_TOKEN": "\''


def test_a_quoted_prefix_of_a_secret_is_a_partial_leak(tmp_path: Path) -> None:
    # PyYAML's error snippets cut a long line after about 20 characters: the start of the secret shows.
    case = Case("yaml", "x", {}, ["check", "c.yaml"], secrets=["Zq7abcdefghijklmnopqrstuvwx"])
    err = b"argtrace check: c.yaml: not valid YAML\n      HF_TOKEN: Zq7abcdefghijk ... \n"
    classes, sig = classify(case, tmp_path, 2, b"", err)
    assert classes == ["LEAK", "BADEXIT"]
    assert sig == "LEAK yaml after 'ot valid YAML\\\\n      HF_TOKEN: ' in stderr (partly)"


def test_the_output_format_is_the_last_one_given() -> None:
    # argparse keeps the last --format; the first was read before, and a gcc report was judged as JSON
    from tests.fuzz.harness import output_format

    assert output_format(["log", "--format", "json", "--format", "gcc", "x.log"]) == "gcc"
    assert output_format(["log", "--format=sarif", "x.log"]) == "sarif"
    assert output_format(["log", "--format", "json", "--", "--format", "gcc"]) == "json"
    assert output_format(["log", "x.log"]) is None
