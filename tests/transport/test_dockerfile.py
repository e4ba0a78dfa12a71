"""``argtrace check Dockerfile [ARGS]``: the image's process as Docker's Dockerfile reference builds it (our
own inputs): continuations, comments inside them, the escape directive, exec vs shell form, ENV/ARG
replacement and scope, ENTRYPOINT + CMD, the words of ``docker run IMAGE ARGS``, stages, and the findings
TP013 (a ``$NAME`` in exec form), TP085 (shell-form ENTRYPOINT drops CMD), TP086 (an ARG read at run time),
TP088 (a RUN line that starts the server) and TP010 (a launcher appended to the image's own entrypoint).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.transport import dockerfile_syntax as D
from argtrace.layers.transport.dockerfile import build_stages, is_dockerfile
from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import alarms, run_cli


def check(tmp_path: Path, text: str, *words: str) -> dict[str, Any]:
    (tmp_path / "Dockerfile").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", "Dockerfile", *words], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def argv(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in alarms(report)]


def test_told_apart_from_scripts() -> None:
    assert is_dockerfile(b'# syntax=docker/dockerfile:1\nARG V=1\nFROM ubuntu:${V}\nCMD ["x"]\n')
    assert manifest_kind(b"FROM vllm/vllm-openai:v0.11.0\n") == "dockerfile"
    assert not is_dockerfile(b"#!/bin/bash\nFROM=1\n")
    assert not is_dockerfile(b"echo FROM x\n")


def test_reader_follows_buildkits_line_rules() -> None:
    text = (
        "# escape=`\n"
        "FROM ubuntu\n"
        "RUN <<EOF\nCMD not an instruction\nEOF\n"
        "CMD python3 `\n"
        "# a comment inside the continuation is dropped\n"
        "\n"
        "    -m x\n"
        'ENTRYPOINT ["a", "b"]\n'
        "ENTRYPOINT [not json]\n"
    )
    instructions, escape = D.read_dockerfile(text)
    assert escape == "`"
    assert [(i.keyword, i.rest, i.line, i.exec_form) for i in instructions] == [
        ("FROM", "ubuntu", 2, None),
        ("RUN", "<<EOF", 3, None),
        ("CMD", "python3     -m x", 6, None),
        ("ENTRYPOINT", '["a", "b"]', 10, ("a", "b")),
        ("ENTRYPOINT", "[not json]", 11, None),
    ]


def test_replacement_as_the_reference_documents() -> None:
    env = {"A": "1", "E": "", "U": None}
    assert [
        w.text for w in D.expand("${A:-x} ${E:-d} ${E-d} ${A:+y} ${N:+y} '$A' \\$A \"$A\"", env, split=True)
    ] == [
        "1",
        "d",
        "",
        "y",
        "",
        "$A",
        "$A",
        "1",
    ]
    word = D.expand("$U/$N", env)[0]
    assert (word.text, word.unknown, word.unset) == ("/", ["U"], ["N"])


def test_env_and_arg_scope() -> None:
    text = (
        "ARG BASE=22.04\n"
        "ARG TAG\n"
        "FROM ubuntu:${BASE} AS build\n"
        "ENV A=one\n"
        "ENV A=two B=$A\n"  # one instruction's values see the variables as they were before it
        "ARG BASE\n"  # re-declared in the stage: the global default
        "ENV C=$BASE D=$TAG\n"
        "FROM build\n"  # a later stage FROM an earlier one inherits its ENV
        "ENV E=${A}x\n"
    )
    stages, _escape, global_args = build_stages(text, "Dockerfile")
    assert [s.base for s in stages] == ["ubuntu:22.04", "build"]
    assert global_args == {"BASE": ("22.04", 1), "TAG": (None, 2)}
    assert stages[1].env == {"A": "two", "B": "one", "C": "22.04", "D": None, "E": "twox"}


def test_exec_entrypoint_gets_cmd_and_the_run_words_replace_it(tmp_path: Path) -> None:
    text = (
        'FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["vllm", "serve"]\n'
        'CMD ["Qwen/Qwen3-0.6B", "--port", "8000"]\n'
    )
    assert argv(check(tmp_path, text)) == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]]
    report = check(tmp_path, text, "Qwen/Qwen3-8B", "--port", "9000")
    assert argv(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "9000"]]
    assert codes(report) == []


def test_an_entrypoint_resets_the_cmd_it_inherits(tmp_path: Path) -> None:
    text = (
        'FROM lmsysorg/sglang:v0.5.5 AS base\nCMD ["--port", "1"]\n'
        'FROM base\nENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n'
    )
    assert argv(check(tmp_path, text)) == [["python3", "-m", "sglang.launch_server", "--model-path", "m"]]


def test_cmd_after_the_base_images_entrypoint(tmp_path: Path) -> None:
    # vllm/vllm-openai v0.11.0's ENTRYPOINT is the api_server module (data/image_entrypoints.json)
    report = check(tmp_path, 'FROM vllm/vllm-openai:v0.11.0\nCMD ["--model", "m", "--port", "8000"]\n')
    assert argv(report) == [
        ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", "--port", "8000"]
    ]
    assert codes(report) == []
    again = check(tmp_path, 'FROM vllm/vllm-openai:v0.11.0\nCMD ["vllm", "serve", "m"]\n')
    assert codes(again)[0] == ("error", "TP010")


def test_exec_form_reference_is_literal(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        'FROM vllm/vllm-openai:v0.12.0\nENV MODEL=Qwen/Qwen3-8B\nENTRYPOINT ["vllm", "serve", "$MODEL"]\n',
    )
    assert codes(report)[0] == ("error", "TP013")
    tp013 = report["findings"][0]
    assert tp013["message"] == (
        "ENTRYPOINT is in exec form (a JSON array): Docker runs it without a shell, so '$MODEL' reaches the "
        "program as the characters `$MODEL`; the image's `ENV MODEL` (Dockerfile:2) never takes its place"
    )
    assert argv(report) == [["vllm", "serve", "$MODEL"]]
    # through `sh -c` the container's shell expands it: nothing to say
    fine = check(
        tmp_path,
        "FROM vllm/vllm-openai:v0.12.0\nENV MODEL=Qwen/Qwen3-8B\n"
        'ENTRYPOINT ["/bin/sh", "-c", "exec vllm serve $MODEL"]\n',
    )
    assert codes(fine) == []
    assert argv(fine) == [["vllm", "serve", "Qwen/Qwen3-8B"]]


def test_shell_entrypoint_ignores_cmd(tmp_path: Path) -> None:
    report = check(tmp_path, 'FROM ubuntu\nENTRYPOINT vllm serve Qwen/Qwen3-8B\nCMD ["--port", "9000"]\n')
    assert codes(report) == [("error", "TP085")]
    assert report["findings"][0]["message"] == (
        "the shell-form ENTRYPOINT runs `/bin/sh -c 'vllm serve Qwen/Qwen3-8B'`, which ignores CMD: "
        "`--port 9000` become $0, $1, ... of that script and never reach the server"
    )
    assert report["findings"][0]["at"] == "Dockerfile:3"
    assert argv(report) == [["vllm", "serve", "Qwen/Qwen3-8B"]]
    # a shell text that reads "$@" uses them
    uses = check(
        tmp_path, 'FROM ubuntu\nENTRYPOINT vllm serve Qwen/Qwen3-8B "$@"\nCMD ["x", "--port", "9000"]\n'
    )
    assert codes(uses) == []
    assert argv(uses) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "9000"]]


def test_an_arg_is_not_in_the_container(tmp_path: Path) -> None:
    report = check(tmp_path, "FROM ubuntu\nARG PORT=9000\nCMD vllm serve m --port $PORT\n")
    assert codes(report)[0] == ("error", "TP086")
    assert report["findings"][0]["message"] == (
        "`$PORT`: PORT is set only by `ARG PORT` (Dockerfile:2), which exists while the image is built, not "
        "in the container: the shell that runs this command at start finds it unset, and the value `9000` "
        "never reaches the server"
    )
    kept = check(tmp_path, "FROM ubuntu\nARG PORT=9000\nENV PORT=$PORT\nCMD vllm serve m --port $PORT\n")
    assert codes(kept) == []
    assert argv(kept) == [["vllm", "serve", "m", "--port", "9000"]]


def test_run_words_appended_to_the_images_own_server_entrypoint(tmp_path: Path) -> None:
    # opea-project/GenAIComps#336 (in docs/real_cases.md's first batch as a docker run): the image's
    # ENTRYPOINT is the api_server; `docker run IMAGE /bin/bash -c "..."` appends the shell to it
    text = 'FROM ubuntu:22.04\nENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]\n'
    report = check(
        tmp_path, text, "/bin/bash", "-c", "python3 -m vllm.entrypoints.openai.api_server --port 80"
    )
    # the appended `-c` is argparse's abbreviation of vLLM's `-cc` (--compilation-config), whose refusal of
    # the shell's command string as JSON is TP010's consequence, folded under it
    assert codes(report) == [("error", "TP010"), ("error", "PA011")]
    assert [c["code"] for c in report["findings"][0]["consequences"]] == ["PA011"]
    assert report["findings"][0]["at"] == "Dockerfile:2"
    assert report["findings"][0]["message"].startswith(
        "the image already has the entrypoint `python3 -m vllm.entrypoints.openai.api_server` (ENTRYPOINT at "
        "Dockerfile:2); the words after the image in `docker run` are appended to it"
    )


def test_run_line_that_starts_a_server(tmp_path: Path) -> None:
    report = check(
        tmp_path, 'FROM python:3.11\nRUN pip install vllm && vllm serve m --port 8000\nCMD ["bash"]\n'
    )
    assert codes(report) == [("error", "TP088")]
    assert report["findings"][0]["at"] == "Dockerfile:2"
    installs = check(tmp_path, 'FROM python:3.11\nRUN pip install vllm sglang\nCMD ["vllm", "serve", "m"]\n')
    assert codes(installs) == []
