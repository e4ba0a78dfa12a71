"""``docker run --env-file`` and compose ``env_file:`` on this machine: the container's exact environment.

The rules followed: docker/cli ``opts.ParseEnvFile`` (values passed through as written) and compose-go v2's
``dotenv`` parser with ``Project.WithServicesEnvironmentResolved`` (quotes, escapes, interpolation, order).
``argtrace --host``: ``test_remote_envfiles.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport import (
    _ABSENT,
    EnvFile,
    _show,
    parse_compose_env_file,
    parse_docker_env_file,
)
from tests.conftest import run_cli

MANIFESTS = Path(__file__).parent / "manifests"
SGLANG = "lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path /m"
TOKEN = "hf_" + "Q7" * 15


def check(*argv: str, cwd: Path | None = None) -> Any:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--no-resolve", *argv], cwd=cwd)
    assert result.status in (0, 1), result.stderr
    return result.json


def tp(report: Any) -> list[tuple[str, str, str | None, str]]:
    return [
        (f["code"], f["severity"], f["at"], f["message"])
        for f in report["findings"]
        if f["code"].startswith("TP")
    ]


# ------------------------------------------------------------------------------------------- docker


def _docker(data: bytes, env: dict[str, str]) -> EnvFile:
    parsed = EnvFile("x.env", "<-c>:1:1")
    parse_docker_env_file(data, lambda name: env.get(name, _ABSENT), parsed)
    return parsed


def test_docker_env_file_values_pass_through_as_written() -> None:
    parsed = _docker(
        b"\xef\xbb\xbf# a comment\n"
        b"  # indented comment\n"
        b"\n"
        b'QUOTED="1"\n'
        b"SINGLE='a b'\n"
        b"HASH=x # not a comment\n"
        b"TRAIL=y  \n"
        b"DOLLAR=$HOME/${X}\n"
        b"  LEADING=kept\n"
        b"EMPTY=\n"
        b"CRLF=z\r\n"
        b"FROM_CALLER\n"
        b"NOT_SET\n"
        b"QUOTED=2\n",
        {"FROM_CALLER": "caller value"},
    )
    assert parsed.problem is None
    assert parsed.values == {
        "SINGLE": "'a b'",
        "HASH": "x # not a comment",
        "TRAIL": "y  ",
        "DOLLAR": "$HOME/${X}",
        "LEADING": "kept",
        "EMPTY": "",
        "CRLF": "z",
        "FROM_CALLER": "caller value",
        "QUOTED": "2",  # the later line wins
    }
    assert parsed.lines == {
        "SINGLE": 5,
        "HASH": 6,
        "TRAIL": 7,
        "DOLLAR": 8,
        "LEADING": 9,
        "EMPTY": 10,
        "CRLF": 11,
        "FROM_CALLER": 12,
        "QUOTED": 14,
    }


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"MY VAR=1\n", "x.env:1: variable 'MY VAR' contains whitespaces"),
        (b"A=1\n=2\n", "x.env:2: no variable name on line '=2'"),
        (b"A=1\nB=\xff\n", "x.env contains invalid utf8 bytes at line 2"),
    ],
)
def test_docker_refuses_a_malformed_env_file(data: bytes, problem: str) -> None:
    assert _docker(data, {}).problem == problem


def test_docker_run_env_files_then_e_flags(tmp_path: Path) -> None:
    (tmp_path / "base.env").write_text(
        f'SGLANG_ENABLE_SPEC_V2="1"\nHF_TOKEN={TOKEN}\nA=base\nB=base\nPASSED\nDB_PASSWORD="pw-1234567"\n'
    )
    hostile = "gpu's $X.env"
    (tmp_path / hostile).write_text("B=second\nC=second\n")
    script = (
        f"docker run --gpus all --env-file base.env --env-file={_show(str(tmp_path / hostile))} "
        f"-e C=flag -e PASSED -e UNSET {SGLANG}"
    )
    report = check("--clean-env", "--env", "PASSED=from caller", "-c", script, cwd=tmp_path)
    env = report["process"]["env"]
    assert env == {
        "SGLANG_ENABLE_SPEC_V2": '"1"',  # docker keeps the quotes: SGLang reads `"1"`, not 1
        "HF_TOKEN": env["HF_TOKEN"],
        "A": "base",
        "B": "second",
        "C": "flag",
        "PASSED": "from caller",
        "DB_PASSWORD": env["DB_PASSWORD"],
        "PATH": None,  # the image's ENV sets it: unknown here
    }
    assert env["HF_TOKEN"].startswith("<redacted:") and env["DB_PASSWORD"].startswith("<redacted:")
    assert TOKEN not in json.dumps(report) and "pw-1234567" not in json.dumps(report)
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker run")
    assert [(f["path"], f["variables"]) for f in hop["env_files"]] == [
        ("base.env", ["SGLANG_ENABLE_SPEC_V2", "HF_TOKEN", "A", "B", "PASSED", "DB_PASSWORD"]),
        (str(tmp_path / "gpu's $X.env"), ["B", "C"]),
    ]
    assert tp(report) == [
        (
            "TP017",
            "warning",
            "base.env:1",
            "SGLANG_ENABLE_SPEC_V2 in base.env is quoted: `docker run --env-file` passes values as written, "
            "so the server gets the quote characters as part of SGLANG_ENABLE_SPEC_V2, not '1'",
        ),
        (
            "TP017",
            "warning",
            "base.env:6",
            "DB_PASSWORD in base.env is quoted: `docker run --env-file` passes values as written, so the "
            "server gets the quote characters as part of DB_PASSWORD, not the value",
        ),
    ]
    evidence = [f["evidence"] for f in report["findings"] if f["code"] == "TP017"]
    assert evidence[1][0]["text"] == "DB_PASSWORD=<redacted>"
    text = run_cli(["check", "--no-shellcheck", "--no-resolve", "-c", script], cwd=tmp_path)
    assert TOKEN not in text.stdout + text.stderr


def test_docker_env_file_missing_here(tmp_path: Path) -> None:
    report = check("-c", f"docker run --env-file 'no such $X.env' {SGLANG}", cwd=tmp_path)
    assert tp(report) == [
        (
            "TP016",
            "warning",  # here: the file may live on the GPU node (argtrace --host NODE reads the node's)
            "<-c>:1:1",
            "docker run --env-file 'no such $X.env': no such file here; docker refuses to create the "
            "container, so the server never starts",
        )
    ]


def test_docker_env_file_is_opened_where_the_scripts_cd_went(tmp_path: Path) -> None:
    # The common deploy script: `cd "$(dirname "$0")"` (or `cd /opt/app`) and then a relative --env-file,
    # run from another directory. docker opens the path in its own working directory, the script's.
    app = tmp_path / "deploy"
    app.mkdir()
    (app / ".env").write_text("SGLANG_PORT_OFFSET=7\n")
    (tmp_path / ".env").write_text("SGLANG_PORT_OFFSET=decoy\n")  # the caller's directory has its own
    script = app / "launch.sh"
    script.write_text(f'#!/bin/bash\ncd "$(dirname "$0")"\ndocker run --env-file .env {SGLANG}\n')
    report = check("deploy/launch.sh", cwd=tmp_path)
    assert report["process"]["env"]["SGLANG_PORT_OFFSET"] == "7"
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker run")
    assert [(f["path"], f["read"], f["skipped"]) for f in hop["env_files"]] == [
        (str(app / ".env"), True, None)
    ]
    # a file missing where the script went is docker's refusal there, named by the path docker opens
    script.write_text(f'#!/bin/bash\ncd "$(dirname "$0")"\ndocker run --env-file other.env {SGLANG}\n')
    assert tp(check("deploy/launch.sh", cwd=tmp_path)) == [
        (
            "TP016",
            "warning",
            "deploy/launch.sh:3:1",
            f"docker run --env-file other.env (opened as {app / 'other.env'}, after the script's `cd`): "
            "no such file here; docker refuses to create the container, so the server never starts",
        )
    ]


def test_docker_env_file_after_a_cd_to_an_unknown_directory_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "app.env").write_text("SEEN=here\n")
    for move in ('cd "$(app-dir --print)"', "pushd /opt/app && popd"):
        report = check("-c", f"{move}\ndocker run --env-file app.env {SGLANG}", cwd=tmp_path)
        assert "SEEN" not in report["process"]["env"], move
        hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker run")
        assert [(f["path"], f["read"], f["skipped"]) for f in hop["env_files"]] == [
            (
                "app.env",
                False,
                "a relative path, and before docker runs the script changes to a directory not known "
                "statically",
            )
        ], move
        assert "TP016" not in [code for code, *_ in tp(report)], move
    # a `cd` inside a subshell leaves the script where it was
    report = check("-c", f"(cd /opt)\ndocker run --env-file app.env {SGLANG}", cwd=tmp_path)
    assert report["process"]["env"]["SEEN"] == "here"


def test_docker_env_file_over_ssh_is_not_read_here(tmp_path: Path) -> None:
    (tmp_path / "app.env").write_text("SEEN=here\n")
    report = check("-c", f"ssh gpu1 'docker run --env-file app.env {SGLANG}'", cwd=tmp_path)
    assert "SEEN" not in report["process"]["env"]
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker run")
    assert hop["env_files"][0]["skipped"] == "a file on gpu1, not readable from here"
    assert "TP016" not in [code for code, *_ in tp(report)]


def test_docker_env_file_uploaded_over_ssh_is_read(tmp_path: Path) -> None:
    (tmp_path / "app.env").write_text("SEEN=uploaded\n")
    report = check(
        "-c",
        f"scp app.env gpu1:/w/app.env\nssh gpu1 'docker run --env-file /w/app.env {SGLANG}'",
        cwd=tmp_path,
    )
    assert report["process"]["env"]["SEEN"] == "uploaded"


# ------------------------------------------------------------------------------------------ compose


def _compose(text: str, lookup: dict[str, str], earlier: dict[str, str | None] | None = None) -> EnvFile:
    parsed = EnvFile("x.env", "compose.yaml:5")
    parse_compose_env_file(text, lookup, parsed, earlier=earlier)
    return parsed


def test_compose_env_file_format() -> None:
    parsed = _compose(
        "# comment\n"
        "PLAIN=a b  # comment\n"
        "NOSPACE=a#b\n"
        'DOUBLE="x # kept" # comment\n'
        "SINGLE='$HOME ${X} \\n'\n"
        'ESCAPES="tab\\tnl\\nq\\"d\\$HOME"\n'
        "INTERP=${HOME}/${MISSING:-dflt}/$$\n"
        "EARLIER=${FROM_BEFORE}-${PLAIN}\n"
        "export EXPORTED=1\n"
        "YAML_STYLE: 2\n"
        "   INDENTED   =   3   \n"
        "INHERITED\n"
        "NOT_FOUND\n"
        "UNSET=${NOPE}\n"
        "PLAIN=again",
        {"HOME": "/root", "INHERITED": "from compose"},
        earlier={"FROM_BEFORE": "file1"},
    )
    assert parsed.problem is None
    assert parsed.values == {
        "NOSPACE": "a#b",
        "DOUBLE": "x # kept",
        "SINGLE": "$HOME ${X} \\n",
        "ESCAPES": 'tab\tnl\nq"d$HOME',
        "INTERP": "/root/dflt/$",
        "EARLIER": "file1-a b",
        "EXPORTED": "1",
        "YAML_STYLE": "2",
        "INDENTED": "3",
        "INHERITED": "from compose",
        "UNSET": "",
        "PLAIN": "again",
    }
    assert parsed.unset == [("NOPE", 14)]
    assert (parsed.lines["DOUBLE"], parsed.lines["INHERITED"], parsed.lines["PLAIN"]) == (4, 12, 15)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("A=1\nB='open\n", "x.env:2: unterminated quoted value 'open"),
        ("MY KEY=1\n", "x.env:1: key cannot contain a space"),
        ("A=1\nB$=2\n", "x.env:2: unexpected character '$' in variable name 'B$=2'"),
    ],
)
def test_compose_refuses_a_malformed_env_file(text: str, problem: str) -> None:
    assert _compose(text, {}).problem == problem


COMPOSE = (
    "services:\n"
    "  sglang:\n"
    "    image: lmsysorg/sglang:latest\n"
    "    env_file:\n"
    "      - base.env\n"
    "      - path: ./it's $$X dir/second.env\n"
    "      - path: optional.env\n"
    "        required: false\n"
    "    environment:\n"
    "      SGLANG_LOG_LEVEL: debug\n"
    "      FROM_ENV: ${OUTER}\n"
    "    command: python3 -m sglang.launch_server --model-path /m\n"
)


def test_compose_env_files_in_order_under_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "COLUMNS", "1000"
    )  # each env file's line whole: text wraps at COLUMNS (100 by default)
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    (tmp_path / ".env").write_text("OUTER=from-dotenv\nMODEL_DIR=/models\n")
    (tmp_path / "base.env").write_text(
        f'SGLANG_ENABLE_SPEC_V2="1"\nSGLANG_LOG_LEVEL=info\nA=base\nB=base\nHF_TOKEN="{TOKEN}"\n'
    )
    (tmp_path / "it's $X dir").mkdir()
    (tmp_path / "it's $X dir" / "second.env").write_text(
        "B=second\nC=${A}+${MODEL_DIR}+${FROM_ENV}\nMODEL_DIR\n"
    )
    report = check("--clean-env", str(tmp_path / "compose.yaml"), cwd=tmp_path)
    env = report["process"]["env"]
    assert env == {
        "SGLANG_ENABLE_SPEC_V2": "1",  # compose removes the quotes
        "SGLANG_LOG_LEVEL": "debug",  # environment: wins over env_file:
        "A": "base",
        "B": "second",  # the later file wins
        "C": "base+/models+from-dotenv",
        "MODEL_DIR": "/models",  # a bare name: from compose's environment (here the .env file)
        "HF_TOKEN": env["HF_TOKEN"],
        "FROM_ENV": "from-dotenv",
        "PATH": None,  # the image's ENV sets it: unknown here
    }
    assert env["HF_TOKEN"].startswith("<redacted:") and TOKEN not in json.dumps(report)
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "compose")
    assert [(f["path"], f["at"], f["read"], f["skipped"]) for f in hop["env_files"]] == [
        (f"{tmp_path}/base.env", f"{tmp_path}/compose.yaml:5", True, None),
        (f"{tmp_path}/it's $X dir/second.env", f"{tmp_path}/compose.yaml:6", True, None),
        (
            f"{tmp_path}/optional.env",
            f"{tmp_path}/compose.yaml:7",
            False,
            "missing, and `required: false`: compose ignores it",
        ),
    ]
    assert tp(report) == []
    text = run_cli(["check", "--clean-env", "--no-resolve", str(tmp_path / "compose.yaml")], cwd=tmp_path)
    lines = [line.strip() for line in text.stdout.splitlines() if line.strip().startswith("env file ")]
    assert lines == [
        f"env file {tmp_path}/base.env: SGLANG_ENABLE_SPEC_V2, SGLANG_LOG_LEVEL, A, B, HF_TOKEN",
        f"env file {tmp_path}/it's $X dir/second.env: B, C, MODEL_DIR",
        f"env file {tmp_path}/optional.env: not read (missing, and `required: false`: compose ignores it)",
    ]
    assert TOKEN not in text.stdout


def test_compose_env_file_missing_and_unset_variables(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        COMPOSE.replace("      - path: optional.env\n        required: false\n", "")
    )
    (tmp_path / "base.env").write_text("A=${NOPE}\n")
    report = check("--clean-env", "compose.yaml", cwd=tmp_path)
    second = "it's $X dir/second.env"
    assert tp(report) == [
        (
            "TP012",
            "warning",
            "compose.yaml:9",
            "${OUTER} in `environment:` is not set in the environment argtrace was given or the .env file: "
            "if it is unset where `docker compose` runs too, compose warns and substitutes an empty string "
            "in FROM_ENV's value",
        ),
        (
            "TP012",
            "warning",
            "base.env:1",
            "${NOPE} in base.env (env_file of service sglang) is not set in the environment argtrace was "
            "given, the .env file, the service's environment or the env file above it: if it is unset where "
            "`docker compose` runs too, compose substitutes an empty string",
        ),
        (
            "TP016",
            "error",
            "compose.yaml:6",
            f"service sglang's env_file {_show(second)}: no such file here; docker compose stops before "
            "creating the container, so the server never starts",
        ),
    ]
    assert report["process"]["env"]["A"] == ""


def test_harbor_vllm_compose_with_its_env_files(tmp_path: Path) -> None:
    shutil.copy(MANIFESTS / "harbor-vllm-compose.yaml", tmp_path / "compose.yaml")
    (tmp_path / ".env").write_text(
        "# harbor's defaults (shortened)\n"
        "HARBOR_CONTAINER_PREFIX=harbor\n"
        "HARBOR_VLLM_VERSION=v0.11.0\n"
        "HARBOR_VLLM_HOST_PORT=33911\n"
        "HARBOR_HF_CACHE=~/.cache/huggingface\n"
        "HARBOR_VLLM_MODEL_SPECIFIER=--model Qwen/Qwen3-8B\n"
        'HARBOR_VLLM_EXTRA_ARGS="--max-model-len 8192"\n'
        f"HARBOR_HF_TOKEN={TOKEN}\n"
        "HARBOR_VLLM_ATTENTION_BACKEND=FLASHINFER\n"
    )
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "override.env").write_text(
        "# This file can be used for additional environment variables specifically for the vLLM service.\n"
        "VLLM_LOGGING_LEVEL=DEBUG\n"
        "VLLM_ATTENTION_BACKEND=XFORMERS\n"
    )
    report = check("--clean-env", "compose.yaml", cwd=tmp_path)
    env = report["process"]["env"]
    assert (env["VLLM_LOGGING_LEVEL"], env["VLLM_ATTENTION_BACKEND"]) == ("DEBUG", "FLASHINFER")
    assert env["HARBOR_VLLM_EXTRA_ARGS"] == "--max-model-len 8192"  # the .env file is also an env_file here
    assert env["HUGGING_FACE_HUB_TOKEN"] == env["HARBOR_HF_TOKEN"] and TOKEN not in json.dumps(report)
    # vllm/vllm-openai:v0.11.0 runs the api_server module (data/image_entrypoints.json, gpustack#2922)
    assert report["servers"][0]["argv"] == [
        "python3",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "Qwen/Qwen3-8B",
        "--max-model-len",
        "8192",
    ]
    assert [s["effective"] for s in report["settings"] if s["name"] == "max_model_len"] == [8192]
