"""An unset ``${VAR}`` in a compose service's ``environment:`` value or ``env_file:`` line.

docker compose reads ``${VAR}`` from the shell that runs it (then ``.env``), for ``environment:`` and an
env file's lines (compose-go v2 ``WithServicesEnvironmentResolved``) as for a ``command:`` item; argtrace
sees only the environment it was given, so an unset name there is a warning resting on that assumption
(TP012, ``basis: assumed``), never an error. ``--env NAME=...`` or ``.env`` next to the file settles it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run_cli

COMPOSE = (
    "services:\n"
    "  vllm:\n"
    "    image: vllm/vllm-openai:v0.12.0\n"
    "    env_file:\n"
    "      - tuning.env\n"
    "    environment:\n"
    "      - VLLM_LOGGING_LEVEL=${LOG_LEVEL}\n"
    "      - VLLM_HOST_IP=${NODE_IP}\n"
    '    command: ["--model", "Qwen/Qwen3-0.6B", "--port", "8000"]\n'
)
MAP_FORM = COMPOSE.replace("- VLLM_LOGGING_LEVEL=", "VLLM_LOGGING_LEVEL: ")
MAP_FORM = MAP_FORM.replace("- VLLM_HOST_IP=", "VLLM_HOST_IP: ")
FIX = (
    "set {0} where `docker compose` runs (or in .env next to the compose file; check with `--env {0}=...`), "
    "or give a default (`${{{0}:-VALUE}}`)"
)


def _check(tmp_path: Path, *argv: str) -> Any:
    result = run_cli(
        ["check", "--format=json", "--no-shellcheck", "--no-resolve", "--clean-env", *argv, "compose.yaml"],
        cwd=tmp_path,
    )
    assert result.status in (0, 1), result.stderr
    return result.json


def _tp012(report: Any) -> list[tuple[str, str, str, str, str]]:
    return [
        (f["severity"], f["basis"], f["at"].rsplit("/", 1)[-1], f["message"], f["fix"])
        for f in report["findings"]
        if f["code"] == "TP012"
    ]


def test_unset_names_in_environment_and_env_file_are_assumed_warnings(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(MAP_FORM)
    (tmp_path / "tuning.env").write_text("VLLM_RPC_TIMEOUT=${RPC_TIMEOUT}\n")
    report = _check(tmp_path)
    assert _tp012(report) == [
        (
            "warning",
            "assumed",
            "compose.yaml:7",
            "${LOG_LEVEL} in `environment:` is not set in the environment argtrace was given or the .env "
            "file: if it is unset where `docker compose` runs too, compose warns and substitutes an empty "
            "string in VLLM_LOGGING_LEVEL's value",
            FIX.format("LOG_LEVEL"),
        ),
        (
            "warning",
            "assumed",
            "compose.yaml:8",
            "${NODE_IP} in `environment:` is not set in the environment argtrace was given or the .env "
            "file: if it is unset where `docker compose` runs too, compose warns and substitutes an empty "
            "string in VLLM_HOST_IP's value",
            FIX.format("NODE_IP"),
        ),
        (
            "warning",
            "assumed",
            "tuning.env:1",
            "${RPC_TIMEOUT} in tuning.env (env_file of service vllm) is not set in the environment argtrace "
            "was given, the .env file, the service's environment or the env file above it: if it is unset "
            "where `docker compose` runs too, compose substitutes an empty string",
            FIX.format("RPC_TIMEOUT"),
        ),
    ]
    assert [f for f in report["findings"] if f["severity"] == "error"] == []


def test_a_list_form_environment_item_is_the_same_warning(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    (tmp_path / "tuning.env").write_text("VLLM_RPC_TIMEOUT=30000\n")
    assert [(s, b, at) for s, b, at, _m, _f in _tp012(_check(tmp_path))] == [
        ("warning", "assumed", "compose.yaml:7"),
        ("warning", "assumed", "compose.yaml:8"),
    ]


def test_the_names_given_or_in_dotenv_raise_nothing(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(MAP_FORM)
    (tmp_path / "tuning.env").write_text("VLLM_RPC_TIMEOUT=${RPC_TIMEOUT}\n")
    (tmp_path / ".env").write_text("LOG_LEVEL=DEBUG\n")
    report = _check(tmp_path, "--env", "NODE_IP=10.0.0.2", "--env", "RPC_TIMEOUT=30000")
    assert _tp012(report) == []
    names = ("VLLM_LOGGING_LEVEL", "VLLM_HOST_IP", "VLLM_RPC_TIMEOUT")
    assert {k: report["process"]["env"][k] for k in names} == {
        "VLLM_LOGGING_LEVEL": "DEBUG",
        "VLLM_HOST_IP": "10.0.0.2",
        "VLLM_RPC_TIMEOUT": "30000",
    }
