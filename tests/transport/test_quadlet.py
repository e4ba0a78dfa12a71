"""``argtrace check vllm.container``: a Podman quadlet as podman-systemd.unit(5) generates its service (our
own inputs): ``Exec=`` after the image's entrypoint, ``[Container]`` variables for the container only,
systemd's substitution of ``Exec=`` from the service's environment (podman#25047), ``Entrypoint=``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.transport.manifests import manifest_kind
from argtrace.layers.transport.quadlet import is_quadlet
from tests.conftest import alarms, run_cli

HEAD = "[Unit]\nDescription=vLLM\n\n[Container]\nImage=docker.io/vllm/vllm-openai:v0.12.0\n"


def check(tmp_path: Path, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / "vllm.container").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, "vllm.container"], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def argv(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def test_told_apart_from_a_service_unit() -> None:
    assert is_quadlet(HEAD.encode() + b"[Service]\nRestart=always\n")
    assert manifest_kind(HEAD.encode() + b"[Service]\nRestart=always\n") == "quadlet"
    assert manifest_kind(b"[Unit]\n[Service]\nExecStart=/usr/bin/vllm serve m\n") == "systemd"


def test_exec_is_appended_to_the_images_entrypoint(tmp_path: Path) -> None:
    report = check(tmp_path, HEAD + "Environment=VLLM_LOGGING_LEVEL=DEBUG\nExec=Qwen/Qwen3-8B --port 8000\n")
    assert argv(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]]
    assert report["process"]["env"]["VLLM_LOGGING_LEVEL"] == "DEBUG"
    assert [f["code"] for f in alarms(report)] == []


def test_container_variables_do_not_reach_exec(tmp_path: Path) -> None:
    report = check(tmp_path, HEAD + "Environment=PORT=8000\nExec=Qwen/Qwen3-8B --port ${PORT}\n")
    tp064 = next(f for f in report["findings"] if f["code"] == "TP064")
    assert tp064["message"] == (
        "`${PORT}` in Exec=: PORT is not in the service's environment (`Environment=` under [Container] "
        "(line 6) sets the container's, for podman; systemd substitutes `Exec=` before podman runs, from "
        "[Service]'s `Environment=`/`EnvironmentFile=`), so each `${NAME}` gets an empty value from systemd"
    )
    assert argv(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", ""]]
    # the same variable under [Service] is systemd's: substituted
    fixed = check(tmp_path, HEAD + "Exec=Qwen/Qwen3-8B --port ${PORT}\n\n[Service]\nEnvironment=PORT=8000\n")
    assert [f["code"] for f in alarms(fixed)] == []
    assert argv(fixed) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]]


def test_dollar_inside_a_word_is_left_for_the_containers_shell(tmp_path: Path) -> None:
    # podman's system test "quadlet - envvar": Exec=sh -c "echo ... $FOOBAR" with [Container] Environment=
    text = (
        "[Container]\nImage=docker.io/library/ubuntu:24.04\nEnvironment=MODEL=Qwen/Qwen3-8B\n"
        'Exec=sh -c "exec vllm serve $MODEL --port 8000"\n'
    )
    report = check(tmp_path, text)
    assert argv(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]]
    assert [f["code"] for f in alarms(report)] == []


def test_entrypoint_json_replaces_the_images(tmp_path: Path) -> None:
    text = HEAD + 'Entrypoint=["python3", "-m", "vllm.entrypoints.openai.api_server"]\nExec=--model m\n'
    assert argv(check(tmp_path, text)) == [
        ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]
    ]
