"""The transport mechanisms of the transport4 batch, on inputs of our own (the reports are in
tests/test_real_cases_transport4.py).

* compose's template grammar (compose-go ``template/template.go``): the vectors of compose-go's own
  ``template_test.go`` (TestUnescaped, TestInvalid, TestDefaultsWithNestedExpansion) must come out as
  compose-go says; TP025 on a file, with compose's own message.
* ``.env`` names no ``${...}`` reads (TP026 near-miss or written without `$`, TP027 the rest), and the
  readers that do take them (``env_file: .env``, an env file's ``${NAME}`` and bare ``NAME``).
* ``docker exec`` (Docker CLI reference, "docker container exec"): its options, and the command it runs
  read as a container's process.
* TP017 with text after the closing quote (docker/cli ``opts.ParseEnvFile`` keeps the whole line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.compose_dotenv import _invalid, _names
from argtrace.layers.transport.docker_cli import parse_docker_exec
from tests.conftest import run_cli


@pytest.fixture(autouse=True)
def new_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))


def check(tmp_path: Path, files: dict[str, str], *argv: str) -> dict[str, Any]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (f["code"], f["severity"]) for f in report["findings"] if f["code"].startswith(("TP", "SH04", "PA"))
    ]


# --- compose's template grammar ---------------------------------------------------------------------------

# compose-go template_test.go at efea3ec0: TestUnescaped (no error, left as written) and TestInvalid
UNESCAPED = ["a $ string", "^REGEX$", "$}", "$"]
INVALID = ["${", "${}", "${ }", "${ foo}", "${foo }", "${foo!}"]
# TestDefaultsWithNestedExpansion and TestInterpolationExternalInterference: valid
NESTED = [
    "ok ${UNSET_VAR-$FOO}",
    "ok ${UNSET_VAR-${FOO} ${FOO}}",
    "ok ${BAR+$FOO ${FOO:+second}}",
    "+ok ${UNSET:-${BAR-defaultValue}}",
    ":?ok ${BAR:-defaultValue}",
    "not ok ${UNSET_VAR:?Mandatory Variable ${FOO}}",
]


@pytest.mark.parametrize("text", UNESCAPED + NESTED)
def test_compose_go_reads_these(text: str) -> None:
    assert _invalid(text) == []


@pytest.mark.parametrize("text", INVALID)
def test_compose_go_refuses_these(text: str) -> None:
    assert _invalid(text) == [0]


def test_a_refused_reference_after_a_valid_one_and_in_a_default() -> None:
    """compose-go interpolates the text after a braced reference's first `}` again, and its default."""
    assert _invalid('"${A:-1}" "${ARGS[@]}"') == [11]
    assert _invalid("${A:-${B[@]}}") == [5]
    assert _invalid('exec "$@" $1 $(date) $$@ $${X[@]}') == []  # no `${`: compose-go v2 leaves them
    assert _names("${A:-x} $B ${C?err} $${D} ${E:+y}") == {"A", "B", "C", "E"}


SCRIPT = """services:
  sglang:
    image: lmsysorg/sglang:v0.5.5
    entrypoint:
      - /bin/bash
      - -c
      - |
        EXTRA=(--enable-metrics)
        exec python3 -m sglang.launch_server --model-path /m --port ${{PORT:-30000}} "{extra}"
"""


def test_tp025_names_the_reference_the_path_and_compose_s_message(tmp_path: Path) -> None:
    report = check(tmp_path, {"compose.yaml": SCRIPT.format(extra="${EXTRA[@]}")}, "compose.yaml")
    tp025 = next(f for f in report["findings"] if f["code"] == "TP025")
    assert (tp025["severity"], tp025["basis"], tp025["at"]) == ("error", "static", "compose.yaml:7")
    assert tp025["message"] == (
        "compose refuses this file before it starts anything: `${EXTRA[@]}` in services.sglang.entrypoint.[] "
        "is not an interpolation compose can read (its template reads `$$`, `$NAME` and `${NAME...}` only), "
        'so `docker compose` stops with "invalid interpolation format for services.sglang.entrypoint.[]. You '
        'may need to escape any $ with another $." This item is the script of a shell in the container: its '
        "`${PORT...}` are compose's too (filled from the environment `docker compose` runs in, not the "
        "container's)."
    )
    assert tp025["fix"] == (
        "Write `$$` for each `$` the container's shell should see (`$${EXTRA[@]}`): compose turns `$$` into "
        "`$`. Double the `$` of the script's other references too if the container should read them."
    )
    fixed = SCRIPT.format(extra="$${EXTRA[@]}").replace("${PORT", "$${PORT")
    assert [
        c for c in codes(check(tmp_path, {"compose.yaml": fixed}, "compose.yaml")) if c[0] == "TP025"
    ] == []


def test_tp025_is_about_the_whole_file_not_only_the_service_checked(tmp_path: Path) -> None:
    """compose interpolates every value of the file before it creates any container."""
    other = (
        SCRIPT.format(extra="x") + "  cache:\n    image: redis\n    command: redis-server --save ${SAVE[0]}\n"
    )
    report = check(tmp_path, {"compose.yaml": other}, "compose.yaml", "--service", "sglang")
    assert [(f["code"], f["at"]) for f in report["findings"] if f["code"] == "TP025"] == [
        ("TP025", "compose.yaml:12")
    ]


# --- .env names the file never reads ----------------------------------------------------------------------

COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.12.0
    volumes:
      - ${{MODEL_DIR:-./models}}:/root/.cache/huggingface
    environment:
      - HF_TOKEN
      - SERVED={{served_name}}
{extra}    command: ["Qwen/Qwen3-0.6B", "--port", "8000"]
"""


def test_dotenv_names_the_file_never_reads(tmp_path: Path) -> None:
    dotenv = (
        "COMPOSE_PROJECT_NAME=llm\nMODELS_DIR=/data\nHF_TOKEN=hf_secret_value\nserved_name=qwen\nLOG=debug\n"
    )
    report = check(tmp_path, {"compose.yaml": COMPOSE.format(extra=""), ".env": dotenv}, "compose.yaml")
    found = [
        (f["code"], f["severity"], f["at"], f["message"])
        for f in report["findings"]
        if f["code"] in ("TP026", "TP027")
    ]
    assert found == [
        (
            "TP026",
            "warning",
            "./.env:2",
            "MODELS_DIR is set in .env, but the compose file reads MODEL_DIR, never MODELS_DIR: compose "
            "fills only the names the file writes as `${...}`, so MODEL_DIR takes its default (or stays "
            "unset) and MODELS_DIR's value reaches no container",
        ),
        (
            "TP026",
            "warning",
            "compose.yaml:8",
            "served_name is set in .env, but services.vllm.environment.[] writes `{served_name}` without "
            "its `$`: compose fills only `${served_name}`, so the container gets the text `{served_name}` "
            "and the value in .env reaches nothing",
        ),
        (
            "TP027",
            "info",
            "./.env:5",
            "LOG is set in .env but read by no `${...}` of the compose file, no bare `environment:` entry "
            "and no `env_file: .env`: compose uses .env only to fill the file's references, so no container "
            "gets it (.env may hold them for other tools)",
        ),
    ]
    assert "hf_secret_value" not in json.dumps(report)


def test_dotenv_names_read_by_an_env_file_or_loaded_whole(tmp_path: Path) -> None:
    dotenv = "MODELS_DIR=/data\nLOG=debug\nFROM_FILE=x\nserved_name=q\n"
    by_file = "      - SERVED2=${served_name}\n    env_file: [vllm.env]\n"
    files = {
        "compose.yaml": COMPOSE.format(extra=by_file).replace("      - SERVED={served_name}\n", ""),
        ".env": dotenv,
        "vllm.env": "A=${FROM_FILE}\nLOG\nMODEL_DIR=${MODELS_DIR}\n",
    }
    assert [c for c in codes(check(tmp_path, files, "compose.yaml")) if c[0] in ("TP026", "TP027")] == []
    whole = COMPOSE.format(extra="    env_file: .env\n")
    report = check(tmp_path, {"compose.yaml": whole, ".env": dotenv}, "compose.yaml")
    assert [c for c in codes(report) if c[0] in ("TP026", "TP027")] == []


# --- docker exec -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "container", "args", "env"),
    [
        (["docker", "exec", "-it", "c", "vllm", "serve", "m"], "c", ["vllm", "serve", "m"], {}),
        (
            ["docker", "container", "exec", "-e", "A=1", "--env=B", "c", "bash"],
            "c",
            ["bash"],
            {"A": "1", "B": None},
        ),
        (["docker", "exec", "-ie", "A=1", "-w", "/w", "c", "ls"], "c", ["ls"], {"A": "1"}),
        (["docker", "exec", "-u", "0", "--detach-keys", "ctrl-x", "c", "--", "x"], "c", ["--", "x"], {}),
    ],
)
def test_docker_exec_options(argv: list[str], container: str, args: list[str], env: dict[str, Any]) -> None:
    run = parse_docker_exec(argv)
    assert run is not None
    assert (run.image, run.args, run.env) == (container, args, env)


@pytest.mark.parametrize(
    "argv",
    [
        ["docker", "exec", "c"],
        ["docker", "exec", "--rm", "c", "ls"],
        ["docker", "run", "img"],
        ["docker", "exec"],
    ],
)
def test_docker_exec_lines_docker_refuses_or_that_are_not_exec(argv: list[str]) -> None:
    assert parse_docker_exec(argv) is None


def test_docker_exec_runs_the_command_in_the_container(tmp_path: Path) -> None:
    """An SGLang variant of spark-arena/sparkrun#114: the JSON's double quotes end the outer double quotes."""
    script = (
        "#!/bin/bash\n"
        'docker exec -e SGLANG_LOG_LEVEL=debug node bash -c "python3 -m sglang.launch_server --model-path /m '
        '--json-model-override-args \'{"rope_scaling": {"factor": 4.0}}\'"\n'
    )
    report = check(tmp_path, {"run.sh": script}, "run.sh")
    assert report["transport"]["hops"][0]["via"] == "docker exec"
    assert report["transport"]["hops"][0]["container"] == "node"
    assert [w["text"] for w in report["servers"][0]["words"]][-1] == "{rope_scaling: {factor: 4.0}}"
    assert report["process"]["env"]["SGLANG_LOG_LEVEL"] == "debug"
    assert report["process"]["env"]["PATH"] is None  # the running container's: not known here
    assert [
        f["code"] for f in report["findings"] if f["code"] in ("SH040", "PR007") and f["severity"] != "info"
    ] == []
    interactive = check(tmp_path, {"run2.sh": "#!/bin/bash\ndocker exec -it node bash\n"}, "run2.sh")
    assert (interactive["servers"], codes(interactive)) == ([], [])


# --- TP017 with text after the closing quote --------------------------------------------------------------


def test_tp017_text_after_the_closing_quote(tmp_path: Path) -> None:
    files = {"vllm.env": 'VLLM_LOGGING_LEVEL="DEBUG" # verbose\nHF_TOKEN="hf_abc" -- mine\n'}
    report = check(tmp_path, files, "-c", "docker run --env-file vllm.env vllm/vllm-openai:v0.12.0 --model m")
    tp017 = [f for f in report["findings"] if f["code"] == "TP017"]
    assert [f["message"] for f in tp017] == [
        "VLLM_LOGGING_LEVEL in vllm.env is quoted: `docker run --env-file` passes values as written, so the "
        "server gets the quote characters and the text after them (`# verbose`) as part of "
        "VLLM_LOGGING_LEVEL, not 'DEBUG'",
        "HF_TOKEN in vllm.env is quoted: `docker run --env-file` passes values as written, so the server "
        "gets the quote characters and the text after them as part of HF_TOKEN, not the value",
    ]
    # the edit drops the note too (docker would keep it), re-checked by the fixes layer
    assert tp017[0]["fix"] == (
        "Write VLLM_LOGGING_LEVEL=DEBUG without quotes at vllm.env:1:20: an env file for `docker run "
        "--env-file` is read literally, quotes included."
    )
    assert [e["replacement"] for e in tp017[0]["fix_edits"]] == ["DEBUG"]
    edit = tp017[0]["fix_edits"][0]
    assert (edit["start"], edit["end"]) == ("1:20", "1:37")
    assert "hf_abc" not in json.dumps(report)


def test_an_alias_bomb_is_walked_once(tmp_path: Path) -> None:
    """Nine levels of nine aliases (9**9 strings if expanded): the template and .env checks visit each node
    once (the first version expanded it and was killed for memory by the suite's own alias-bomb test)."""
    lines = ["x-bomb:", "  a0: &a0 [lol, '${BAD[@]}', lol]"]
    for i in range(1, 10):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    text = "\n".join(lines) + "\n" + COMPOSE.format(extra="")
    report = check(tmp_path, {"compose.yaml": text}, "compose.yaml")
    assert [(f["code"], f["at"]) for f in report["findings"] if f["code"] == "TP025"] == [
        ("TP025", "compose.yaml:2")
    ]
