"""The transport4 batch (docs/real_cases.md, "Transport, 4th batch"): twelve launch failures where a setting
was lost or changed by how it was carried (compose and its ``.env``, ``docker exec`` through two shells,
``docker run --env-file``, a caller's variable replaced by a script, ``source .env``, ``nohup NAME=VALUE``,
CRLF), and four correct launches, measured before any change as a new user (no resolver environment, no
Hugging Face cache).

SGLang and vLLM reports were too few (four: club-3090#7, club-3090#429, sparkrun#114, DeepSpec#36), so
eight reports are of other Python programs started the same way (a Gradio UI, Telegram bots, a FastAPI and
an MCP server, a training script, a uvicorn server's entrypoint): the mechanism is the carrier's, not the
framework's. Each ``tests/data/real_cases_transport4/`` file names its URL in its header.

First seen (on 9ff1c7f) / now: a = 3 / 11, b = 2 / 1, c = 7 / 0, d = 0 / 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import finding, recorded_check, shown
from tests.conftest import Launch, names_the_cause_and_the_change

CASES = Path(__file__).resolve().parent / "data" / "real_cases_transport4"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(file: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(file))


# --- SGLang and vLLM ----------------------------------------------------------------------------------------


def test_club3090_7_dotenv_names_the_compose_file_never_reads() -> None:
    """Was nothing (c); now TP026 for MODELS_DIR (the file reads MODEL_DIR) and TP027 (info) for PORT."""
    report = check("fail_club3090_7/docker-compose.long-vision.yml")
    assert shown(report) == [("warning", "TP026", "static")]
    tp026 = finding(report, "TP026")
    assert tp026["at"] == "./.env:2"
    assert tp026["message"] == (
        "MODELS_DIR is set in .env, but the compose file reads MODEL_DIR, never MODELS_DIR: compose fills "
        "only the names the file writes as `${...}`, so MODEL_DIR takes its default (or stays unset) and "
        "MODELS_DIR's value reaches no container"
    )
    assert tp026["fix"] == "Rename MODELS_DIR to MODEL_DIR in .env."
    tp027 = finding(report, "TP027")
    assert (tp027["severity"], tp027["at"]) == ("info", "./.env:3")
    assert tp027["message"].startswith("PORT is set in .env but read by no `${...}` of the compose file")


def test_club3090_429_a_bash_array_in_a_compose_entrypoint_script() -> None:
    """Was TP012 (b: "set LMCACHE_L2_ADAPTER where compose runs"); now TP025: compose refuses the file."""
    report = check("fail_club3090_429_lmcache.yml")
    assert shown(report) == [("error", "TP025", "static")]
    tp025 = finding(report, "TP025")
    assert tp025["at"] == "fail_club3090_429_lmcache.yml:33"
    assert tp025["message"] == (
        "compose refuses this file before it starts anything: `${LM_ARGS[@]}` in "
        "services.vllm-qwen36-27b-lmcache.entrypoint.[] is not an interpolation compose can read (its "
        'template reads `$$`, `$NAME` and `${NAME...}` only), so `docker compose` stops with "invalid '
        "interpolation format for services.vllm-qwen36-27b-lmcache.entrypoint.[]. You may need to escape "
        'any $ with another $." This item is the script of a shell in the container: its '
        "`${LMCACHE_CHUNK_SIZE...}`, `${LMCACHE_L1_GB...}`, `${LMCACHE_L2...}` and the other references are "
        "compose's too (filled from the environment `docker compose` runs in, not the container's)."
    )
    assert tp025["fix"] == (
        "Write `$$` for each `$` the container's shell should see (`$${LM_ARGS[@]}`): compose turns `$$` "
        "into `$`. Double the `$` of the script's other references too if the container should read them."
    )
    assert [f["code"] for f in report["findings"] if f["code"] == "TP012"] == []


def test_sparkrun114_json_through_docker_exec_and_two_shells() -> None:
    """Was SH040 ("argtrace does not follow docker exec", c); now the server in the container is read, and
    vLLM's own refusal of the JSON the outer double quotes stripped is the error."""
    report = check("fail_sparkrun114_exec_serve_detached.sh")
    assert shown(report) == [("error", "PA011", "schema")]
    pa011 = finding(report, "PA011")
    assert pa011["at"] == "<docker exec sparkrun_solo>:1:15"
    assert pa011["message"].startswith(
        "argument --hf-overrides: Value {rope_scaling: {rope_type: yarn, factor: 4.0, "
        "original_max_position_embeddings: 262144}} cannot be converted to"
    )
    assert names_the_cause_and_the_change(report, "--hf-overrides", "single-quote the JSON")
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker exec")
    assert hop["container"] == "sparkrun_solo"


def test_deepspec36_the_script_replaces_the_gpus_its_caller_gave() -> None:
    """Was nothing (c); now SH042 at the script's per-worker assignment."""
    report = check("fail_deepspec36/run.cmd")
    assert shown(report) == [("warning", "SH042", "static")]
    sh042 = finding(report, "SH042")
    assert sh042["at"] == "scripts/data/launch_sglang_server.sh:105:5"
    assert sh042["message"] == (
        "CUDA_VISIBLE_DEVICES=2,3 is given to the script at <-c>:1:1, but the script sets "
        "CUDA_VISIBLE_DEVICES=0, 1, 2, 3, 4, 5, 6, 7 for its 8 servers here without reading it: the value "
        "given never reaches them"
    )
    assert len(report["servers"]) == 8


# --- other Python programs started the same way -----------------------------------------------------------


def test_browseruse396_a_dotenv_name_no_container_gets() -> None:
    """Was nothing (c); now TP027, an info (b): a project's .env often holds names for its scripts too."""
    report = check("fail_browseruse396/docker-compose.yml")
    assert shown(report) == []
    tp027 = finding(report, "TP027")
    assert (tp027["severity"], tp027["at"]) == ("info", "./.env:3")
    assert tp027["message"] == (
        "OLLAMA_ENDPOINT is set in .env but read by no `${...}` of the compose file, no bare `environment:` "
        "entry and no `env_file: .env`: compose uses .env only to fill the file's references, so no "
        "container gets it (.env may hold them for other tools)"
    )


def test_jackett7_braces_without_the_dollar() -> None:
    """Was nothing (c); now TP026 for each `{name}` written without its `$`."""
    report = check("fail_jackett7/docker-compose.yml")
    assert shown(report) == [("warning", "TP026", "static"), ("warning", "TP026", "static")]
    first = finding(report, "TP026")
    assert first["at"] == "docker-compose.yml:10"
    assert first["message"] == (
        "telegram_bot_token is set in .env, but services.telegram.environment.[] writes "
        "`{telegram_bot_token}` without its `$`: compose fills only `${telegram_bot_token}`, so the "
        "container gets the text `{telegram_bot_token}` and the value in .env reaches nothing"
    )
    assert first["fix"] == "Write `${telegram_bot_token}` in services.telegram.environment.[]."


def test_cognee1750_quotes_and_a_note_after_them_in_a_docker_env_file() -> None:
    """Was TP017 for four other variables, not the one that failed (b); now LLM_PROVIDER's quotes and the
    text after them are named too (docker keeps both)."""
    report = check("fail_cognee1750/run.cmd")
    assert shown(report) == [("warning", "TP017", "static")] * 7
    tp017 = finding(report, "TP017")
    assert tp017["at"] == "./.env:3"
    assert tp017["message"] == (
        "LLM_PROVIDER in ./.env is quoted: `docker run --env-file` passes values as written, so the server "
        "gets the quote characters and the text after them (`-- or gemini`) as part of LLM_PROVIDER, not "
        "'openai'"
    )
    assert tp017["fix"] == (
        "Write LLM_PROVIDER=openai without quotes at ./.env:3:14: an env file for `docker run --env-file` is "
        "read literally, quotes included."
    )


@pytest.mark.parametrize("case", ["fail_telegram168/run.cmd", "fail_telegram140/run.cmd"])
def test_telegram_quoted_tokens_in_a_docker_env_file(case: str) -> None:
    """a before and after: TP017 for the quoted token (behind `sudo` in #168)."""
    report = check(case)
    assert shown(report) == [("warning", "TP017", "static")] * 2
    assert [f["message"].split(" in ")[0] for f in report["findings"] if f["code"] == "TP017"] == [
        "OPENAI_API_KEY",
        "TELEGRAM_BOT_TOKEN",
    ]


def test_sas32_a_sourced_env_line_runs_a_word() -> None:
    """Was SH019 and shellcheck's SC1091 (c); now SH043 at the .env line."""
    report = check("fail_sas32/run.sh")
    assert shown(report) == [("warning", "SH043", "static")]
    sh043 = finding(report, "SH043")
    assert sh043["at"] == ".env:1"
    assert sh043["message"] == (
        "`source` (run.sh:5:1) reads this line as the command `Job` with COMPUTE_CONTEXT_NAME=SAS in its "
        "environment only (bash ends an unquoted value at the first blank): bash says `Job: command not "
        "found`, and COMPUTE_CONTEXT_NAME stays unset for the commands after it"
    )


def test_yolov3_131_nohup_runs_the_assignment() -> None:
    """Was SH019 (c); now SH041, an error: nothing starts."""
    report = check("fail_yolov3_131.cmd")
    assert shown(report) == [("error", "SH041", "static")]
    assert finding(report, "SH041")["fix"] == (
        "Put the assignment before `nohup`: `CUDA_VISIBLE_DEVICES=GPU_ID nohup python train.py` (or "
        "`nohup env CUDA_VISIBLE_DEVICES=GPU_ID python train.py`)."
    )


def test_whisperx13_crlf_entrypoint() -> None:
    """a before and after: SH002 names the CRLF line ends (SH001 is bash -n's own refusal of `do\\r`)."""
    report = check("fail_whisperx13_entrypoint.sh")
    assert [c for _s, c, _b in shown(report)] == ["SH001", "SH001", "SH001", "SH002", "SC1072"]
    assert finding(report, "SH002")["message"] == (
        "fail_whisperx13_entrypoint.sh has CRLF (Windows) line endings on 27 line(s): bash keeps the `\\r`"
    )


# --- correct launches ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "ok_club3090_429_lmcache_fixed.yml",  # club-3090@ebcd7fc7: every $ of the script doubled
        "ok_club3090_7_fixed/docker-compose.long-vision.yml",  # club-3090#12: ${PORT:-8020}, MODEL_DIR
        "fail_deepspec36/ok_default.cmd",  # DeepSpec's script on all eight GPUs, no caller's value
        "ok_browseruse396_fixed/docker-compose.yml",  # browser-use@1607c87: OLLAMA_ENDPOINT=${...}
    ],
)
def test_correct_launches_stay_clean(case: str) -> None:
    report = check(case)
    assert shown(report) == []
    assert [f["code"] for f in report["findings"] if f["code"] in ("TP025", "TP026", "TP027", "SH042")] == []
