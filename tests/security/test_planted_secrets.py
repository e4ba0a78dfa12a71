"""Planted secrets never leave argtrace: every command, every format, stdout and stderr, error paths.

Distinct secrets are planted where a real launch has them (exports with every name pattern, secret flags
with long, short and list values, ``user:pass@`` URLs, Bearer headers in logs, a YAML file that breaks
after a secret, ``/server_info`` payloads with ``admin_api_key``/``ssl_keyfile_password``/``launch_command``,
a real child process's environ). Each test runs the real CLI (in-process through ``run_cli``, and once
through the console script) and fails on any planted value in any output, or in any request argtrace sent
to a server that was not meant to receive it. ``--show-secrets`` must still show them.
"""

from __future__ import annotations

import copy
import gzip
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argtrace.redact import mask
from tests.conftest import REPO, CliResult, run_cli
from tests.live.fixture_server import FixtureServer, load_fixture
from tests.observed.fake_server import fake_site, start_fake_server, stop

# Long secrets (found by name and, some, by shape), short ones (under 6 characters: masked whole where
# named and as whole words elsewhere), list values.
API_KEY = "sk-plantedApiKeyLong0123456789abcdef"
SHORT_KEY = "q7z"
LIST_KEYS = ("lk1Ab", "lk2Cd9x")
HF = "hf_plantedHFtokenAbcdefghij0123456789"
DB_PASS = "dbPw5"
MY_PAT = "patPlanted77x"
SECRETS_JSON = "sjPlanted42q"
CLIENT_SECRET = "csPlanted31zz"
AWS_KEY = "awsPlantedSecret9Q"
PROXY_PW = "urlPw99zz"
ADMIN_KEY = "admPlanted55k"
SSL_PW = "sslPw44q"
BEARER = "brTok3nPlantedXy"
BASIC = "YmFzaWNQbGFudGVkOnB3"
LAUNCH_TOKEN = "hf_launchCmdTokenPlanted0123456789"
LAUNCH_KEY = "lcKey88"
YAML_SECRET = "yamlSecret66z"
PID_HF = "hf_pidRealTokenPlanted0123456789ab"
PID_PASS = "pidPw"
WATERMARK = "wmPlantedKey12"

ALL = (
    API_KEY, SHORT_KEY, *LIST_KEYS, HF, DB_PASS, MY_PAT, SECRETS_JSON, CLIENT_SECRET, AWS_KEY, PROXY_PW,
    ADMIN_KEY, SSL_PW, BEARER, BASIC, LAUNCH_TOKEN, LAUNCH_KEY, YAML_SECRET, PID_HF, PID_PASS, WATERMARK,
)  # fmt: skip

# Every --format: the CI formats (SARIF, GitHub, gcc, JUnit, JSON lines) read the same redacted dict.
FORMATS = ("text", "json", "sarif", "github", "gcc", "junit", "json-lines")


def assert_clean(result: CliResult, *planted: str) -> None:
    """No planted value anywhere in stdout or stderr."""
    for secret in planted or ALL:
        for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
            assert secret not in text, f"{secret!r} leaked on {stream}: " + next(
                line for line in text.splitlines() if secret in line
            )


def _script(tmp_path: Path, body: str, name: str = "launch.sh") -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return path


SGLANG_SCRIPT = f"""export HF_TOKEN={HF}
export DB_PASS={DB_PASS}
export MY_PAT={MY_PAT}
export SECRETS_JSON={SECRETS_JSON}
export CLIENT_SECRET={CLIENT_SECRET}
export AWS_SECRET_ACCESS_KEY={AWS_KEY}
export HTTPS_PROXY=http://bob:{PROXY_PW}@proxy.local:3128
python3 -m sglang.launch_server --model-path /models/qwen --port 30000 \\
    --api-key {SHORT_KEY} --admin-api-key {ADMIN_KEY} --ssl-keyfile-password={SSL_PW} \\
    --hf-token {LAUNCH_TOKEN}
echo "started with $HF_TOKEN and Authorization: Bearer {BEARER}"
"""

VLLM_SCRIPT = f"""export HF_TOKEN={HF}
vllm serve /models/qwen --port 8000 --api-key {LIST_KEYS[0]} {LIST_KEYS[1]} --max-num-seqs 8
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_script_every_name_pattern_and_secret_flag(tmp_path: Path, fmt: str) -> None:
    script = _script(tmp_path, SGLANG_SCRIPT)
    result = run_cli(
        ["check", "--format", fmt, "--no-shellcheck", "--no-resolve", "--all-settings", str(script)]
    )
    assert result.status in (0, 1), result.stderr
    assert_clean(result)
    if fmt in ("text", "json"):  # the CI formats print findings only: see test_ci_formats_mask_findings
        assert "<redacted:" in result.stdout
    if fmt == "json":
        data = result.json
        env = data["process"]["env"]
        for name in (
            "HF_TOKEN",
            "DB_PASS",
            "MY_PAT",
            "SECRETS_JSON",
            "CLIENT_SECRET",
            "AWS_SECRET_ACCESS_KEY",
        ):
            assert env[name].startswith("<redacted:"), name
        # A 3-character api key in servers[].words is masked whole.
        words = [w["text"] for w in data["servers"][0]["words"]]
        assert words[words.index("--api-key") + 1].startswith("<redacted:")
        assert env["HTTPS_PROXY"].startswith("http://bob:<redacted:") and env["HTTPS_PROXY"].endswith(
            "@proxy.local:3128"
        )


CI_FORMATS = ("sarif", "github", "gcc", "junit", "json-lines")


@pytest.mark.parametrize("fmt", CI_FORMATS)
def test_ci_formats_mask_findings(tmp_path: Path, fmt: str) -> None:
    """A comment inside the continuation cuts ``--api-key KEY`` off: SH004's message quotes the key. The
    findings-only formats carry it with --show-secrets (so the check below can fail) and mask it without."""
    script = _script(
        tmp_path,
        f"python3 -m sglang.launch_server \\\n    --model-path /m \\\n    # cut\n    --api-key {API_KEY} \\\n"
        "    --port 3000\n",
    )
    argv = ["check", "--format", fmt, "--no-shellcheck", "--no-resolve", str(script)]
    shown = run_cli([*argv[:1], "--show-secrets", *argv[1:]])
    assert API_KEY in shown.stdout
    result = run_cli(argv)
    assert result.status == 1, result.stderr
    assert_clean(result)
    assert mask(API_KEY).strip("<>") in result.stdout  # (XML writes the angle brackets as entities)


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_vllm_list_valued_api_key(tmp_path: Path, fmt: str) -> None:
    script = _script(tmp_path, VLLM_SCRIPT)
    result = run_cli(
        ["check", "--format", fmt, "--no-shellcheck", "--no-resolve", "--all-settings", str(script)]
    )
    assert result.status in (0, 1), result.stderr
    assert_clean(result)
    if fmt in ("text", "json"):  # (the CI formats print findings only)
        assert "--max-num-seqs" in result.stdout  # the rest of the command is still shown


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_command_string_and_env_options(fmt: str) -> None:
    result = run_cli(
        [
            "check", "--format", fmt, "--no-shellcheck", "--no-resolve",
            "--env", f"HF_TOKEN={HF}", "--env", f"DB_PASS={DB_PASS}",
            "-c",
            f"python3 -m sglang.launch_server --model-path /m --api-key {API_KEY} "
            f"--watermark-key {WATERMARK}",
        ]
    )  # fmt: skip
    assert_clean(result)


def test_shown_with_show_secrets(tmp_path: Path) -> None:
    script = _script(tmp_path, SGLANG_SCRIPT)
    result = run_cli(
        ["check", "--format", "json", "--no-shellcheck", "--no-resolve", "--show-secrets", str(script)]
    )
    for secret in (HF, DB_PASS, MY_PAT, SHORT_KEY, ADMIN_KEY, SSL_PW):
        assert secret in result.stdout, secret


# --- logs -----------------------------------------------------------------------------------------------

SGLANG_LOG = "\n".join(
    [
        "[2026-11-30 08:00:00] server_args=ServerArgs(model_path='/models/qwen', "
        f"tokenizer_path='/models/qwen', host='127.0.0.1', port=30000, api_key='{SHORT_KEY}', "
        f"admin_api_key='{ADMIN_KEY}', ssl_keyfile_password='{SSL_PW}', hf_token='{LAUNCH_TOKEN}', "
        "chunked_prefill_size=8192)",
        f"[2026-11-30 08:00:01] Using proxy http://bob:{PROXY_PW}@proxy.local:3128",
        f"[2026-11-30 08:00:02] Request headers: {{'Authorization': 'Bearer {BEARER}', 'X': 'y'}}",
        f'[2026-11-30 08:00:02] curl -H "Authorization: Basic {BASIC}" http://127.0.0.1:30000/health',
        f"[2026-11-30 08:00:03] env HF_TOKEN={HF} DB_PASS={DB_PASS}",
        "[2026-11-30 08:00:04] \x1b]0;pwned title\x07\x1b[2J cleared",
        # The error line is quoted in the report (traceback, finding, evidence): its secrets must not be.
        "Traceback (most recent call last):",
        '  File "/x/http_server.py", line 10, in launch',
        "    raise ValueError(msg)",
        f"ValueError: refused Authorization: Bearer {BEARER} via http://bob:{PROXY_PW}@proxy "
        f"token {HF} key {SHORT_KEY}\x1b]0;pwned\x07\x1b[2J\rhidden",
        "",
    ]
)

VLLM_LOG = "\n".join(
    [
        "(APIServer pid=1) INFO 05-01 17:08:06 [utils.py:233] non-default args: "
        f"{{'model_tag': '/models/qwen', 'model': '/models/qwen', "
        f"'api_key': ['{LIST_KEYS[0]}', '{LIST_KEYS[1]}'], 'max_num_seqs': 8}}",
        f"(APIServer pid=1) INFO 05-01 17:08:07 [api_server.py:1] Authorization: Bearer {BEARER}",
        "",
    ]
)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("which", ["sglang", "vllm"])
def test_log_every_format(tmp_path: Path, fmt: str, which: str) -> None:
    log = tmp_path / "server.log"
    log.write_text(SGLANG_LOG if which == "sglang" else VLLM_LOG)
    result = run_cli(["log", "--format", fmt, "--all-settings", str(log)])
    assert result.status in (0, 1), result.stderr
    assert_clean(result)
    gz = tmp_path / "server.log.gz"
    gz.write_bytes(gzip.compress(log.read_bytes()))
    assert_clean(
        run_cli(["log", "--format", fmt, "--all-settings", "--expect", f"api_key={API_KEY}", str(gz)])
    )


def test_log_text_shows_escape_sequences_visibly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # the evidence line whole: text wraps at COLUMNS (100 by default)
    log = tmp_path / "server.log"
    log.write_text(SGLANG_LOG)
    result = run_cli(["log", str(log)])
    assert "\x1b" not in result.stdout and "\r" not in result.stdout and "\x07" not in result.stdout
    error_line = next(
        line for line in result.stdout.splitlines() if "evidence" in line and "ValueError" in line
    )
    masked = (
        f"Bearer {mask(BEARER)} via http://bob:{mask(PROXY_PW)}@proxy token {mask(HF)} key {mask(SHORT_KEY)}"
    )
    assert error_line.endswith(f"refused Authorization: {masked}\\x1b]0;pwned\\a\\x1b[2J\\rhidden")


def test_check_with_log(tmp_path: Path) -> None:
    script = _script(tmp_path, SGLANG_SCRIPT)
    log = tmp_path / "server.log"
    log.write_text(SGLANG_LOG)
    for fmt in FORMATS:
        result = run_cli(
            ["check", "--format", fmt, "--no-shellcheck", "--no-resolve", "--log", str(log), str(script)]
        )
        assert_clean(result)


# --- live and check --url against a real HTTP server ----------------------------------------------------


def _planted_fixture() -> dict[str, Any]:
    fixture = copy.deepcopy(load_fixture("sglang-0.5.23-apikey.json".removesuffix(".json")))
    fixture["api_key"] = API_KEY
    info = fixture["endpoints"]["/server_info"]["json"]
    info["api_key"] = API_KEY
    info["admin_api_key"] = ADMIN_KEY
    info["ssl_keyfile_password"] = SSL_PW
    info["hf_token"] = LAUNCH_TOKEN
    info["watermark_key"] = WATERMARK
    info["launch_command"] = (
        f"--model-path /models/qwen --api-key {LAUNCH_KEY} --hf-token={LAUNCH_TOKEN} "
        f"--ssl-keyfile-password '{SSL_PW}'"
    )
    info["served_model_name"] = f"qwen via http://bob:{PROXY_PW}@proxy.local"
    info["internal_states"] = [{"api_key": API_KEY, "nested": {"client_secret": CLIENT_SECRET}}]
    fixture["endpoints"]["/get_server_info"] = {"status": 200, "json": info}
    return fixture


@pytest.fixture
def planted_server() -> Iterator[FixtureServer]:
    server = FixtureServer(_planted_fixture()).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("fmt", FORMATS)
def test_live_all_settings(planted_server: FixtureServer, fmt: str) -> None:
    result = run_cli(["live", planted_server.url, "--format", fmt, "--api-key", API_KEY, "--all-settings"])
    assert result.status in (0, 1), result.stderr
    assert_clean(result)
    # The key was sent to this server (it is its own) as a bearer header, nothing else planted was sent.
    assert {auth for _, auth in planted_server.requests} <= {f"Bearer {API_KEY}", None}
    assert all(secret not in path for path, _ in planted_server.requests for secret in ALL)


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_url_uses_the_launch_key_and_prints_nothing(
    planted_server: FixtureServer, tmp_path: Path, fmt: str
) -> None:
    script = _script(
        tmp_path,
        f"export HF_TOKEN={HF}\n"
        f"python3 -m sglang.launch_server --model-path /models/qwen --api-key {API_KEY}\n",
    )
    result = run_cli(
        [
            "check",
            "--format",
            fmt,
            "--no-shellcheck",
            "--no-resolve",
            "--url",
            planted_server.url,
            str(script),
        ]
    )
    assert_clean(result)
    assert {auth for _, auth in planted_server.requests} <= {f"Bearer {API_KEY}", None}


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_fleet_of_planted_servers_prints_no_secret(planted_server: FixtureServer, fmt: str) -> None:
    # Two replicas of the planted server (one through a URL with a password): settings, drift and findings
    # carry none of the planted values.
    other = FixtureServer(_planted_fixture()).start()
    try:
        base = other.url.replace("http://", f"http://bob:{PROXY_PW}@")
        words = ["--url", planted_server.url, "--url", base, "--url", f"http://bob:{PROXY_PW}@127.0.0.1:9"]
        result = run_cli(["fleet", "--format", fmt, "--api-key", API_KEY, "--timeout", "2", *words])
    finally:
        other.stop()
    assert result.status == 1, result.stderr
    assert_clean(result)


def test_live_url_with_password_refused_connection() -> None:
    result = run_cli(["live", f"http://bob:{PROXY_PW}@127.0.0.1:9", "--format", "json", "--timeout", "2"])
    assert_clean(result)


# --- real processes: ps and check --pid -----------------------------------------------------------------


@pytest.fixture
def planted_process(tmp_path: Path) -> Iterator[int]:
    site = fake_site(tmp_path / "site")
    proc = start_fake_server(
        site,
        ["--model-path", "/models/qwen", "--api-key", API_KEY, "--admin-api-key", SHORT_KEY],
        env={"HF_TOKEN": PID_HF, "DB_PASS": PID_PASS, "MY_PAT": MY_PAT, "SGLANG_ENABLE_SPEC_V2": "1"},
        cwd=tmp_path,
        port_file=tmp_path / "port",
    )
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "port").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        yield proc.pid
    finally:
        stop(proc)


@pytest.mark.parametrize("fmt", FORMATS)
def test_ps(planted_process: int, fmt: str) -> None:
    for extra in ([], ["--all-env"]):
        result = run_cli(["ps", "--format", fmt, "--pid", str(planted_process), *extra])
        assert result.status == 0, result.stderr
        assert_clean(result)


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_pid_real_values_differ_from_prediction(planted_process: int, tmp_path: Path, fmt: str) -> None:
    script = _script(
        tmp_path,
        f"export HF_TOKEN={HF}\nexport DB_PASS={DB_PASS}\n"
        f"python3 -m sglang.launch_server --model-path /models/qwen --api-key {LAUNCH_KEY}\n",
    )
    result = run_cli(
        [
            "check",
            "--format",
            fmt,
            "--no-shellcheck",
            "--no-resolve",
            "--pid",
            str(planted_process),
            str(script),
        ]
    )
    assert "PR101" in result.stdout  # the differing environment is reported, with masked values
    assert_clean(result)


def test_check_pid_shows_with_show_secrets(planted_process: int, tmp_path: Path) -> None:
    script = _script(
        tmp_path, f"export HF_TOKEN={HF}\npython3 -m sglang.launch_server --model-path /models/qwen\n"
    )
    result = run_cli(
        ["check", "--format", "json", "--no-shellcheck", "--no-resolve", "--show-secrets",
         "--pid", str(planted_process), str(script)]
    )  # fmt: skip
    assert PID_HF in result.stdout and HF in result.stdout


# --- mem, why, run --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_mem(fmt: str) -> None:
    config = REPO / "tests" / "data" / "models"
    model = next(p for p in sorted(config.iterdir()) if (p / "config.json").exists() or p.suffix == ".json")
    result = run_cli(
        ["mem", "--format", fmt, "--model-config", str(model), "--env", f"HF_TOKEN={HF}",
         "--", "--api-key", API_KEY, "--admin-api-key", SHORT_KEY]
    )  # fmt: skip
    assert_clean(result)


@pytest.mark.parametrize("fmt", FORMATS)
def test_why(fmt: str) -> None:
    text = (
        f"ValueError: bad --api-key {API_KEY} with Authorization: Bearer {BEARER} from http://u:{PROXY_PW}@h"
    )
    result = run_cli(["why", "--format", fmt, text])
    assert_clean(result)


@pytest.mark.parametrize("fmt", FORMATS)
def test_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    fake_site(tmp_path / "site")
    (tmp_path / "marker").mkdir()
    monkeypatch.setenv("ARGTRACE_TEST_MARKER_DIR", str(tmp_path / "marker"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    script = _script(tmp_path, SGLANG_SCRIPT)
    result = run_cli(["run", "--format", fmt, "--timeout", "30", str(script)], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result)


# --- error paths ----------------------------------------------------------------------------------------


def test_yaml_syntax_error_after_a_secret(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  server:\n    image: lmsysorg/sglang\n    environment:\n"
        f"      HF_TOKEN: {YAML_SECRET}\n      BROKEN: [unclosed {YAML_SECRET}\n"
        "    command: python3 -m sglang.launch_server --model-path /m\n"
    )
    for fmt in FORMATS:
        result = run_cli(["check", "--format", fmt, "--no-shellcheck", str(compose)])
        assert result.status == 2
        assert "not valid YAML" in result.stderr
        assert_clean(result)


def test_usage_errors_mask_secrets_on_stderr(tmp_path: Path) -> None:
    # The script's name holds the key given to --api-key: known secret, masked in the message.
    result = run_cli(["check", "--api-key", API_KEY, str(tmp_path / f"missing-{API_KEY}.sh")])
    assert "no such file" in result.stderr
    assert result.status == 2 and result.stderr
    assert_clean(result)
    result = run_cli(["log", "--launched-after", API_KEY, "--api-key", API_KEY, str(tmp_path)])
    assert result.status == 2
    assert_clean(result)
    result = run_cli(["live", "http://127.0.0.1:9", "--api-key", API_KEY, "--timeout", f"-{SHORT_KEY}"])
    assert_clean(result)


def test_internal_error_text_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    import argtrace.commands.why as why

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"failed with token {HF} and password={DB_PASS}")

    monkeypatch.setattr(why, "explain", boom)
    result = run_cli(["why", "some error text"])
    assert result.status == 2 and "internal error: RuntimeError" in result.stderr
    assert_clean(result, HF, DB_PASS)


def test_debug_traceback_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    import argtrace.commands.why as why

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"failed with token {HF} and password={DB_PASS}")

    monkeypatch.setattr(why, "explain", boom)
    monkeypatch.setenv("ARGTRACE_DEBUG", "1")
    result = run_cli(["why", "some error text"])
    assert result.status == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert f"RuntimeError: failed with token {mask(HF)} and password={mask(DB_PASS)}" in result.stderr
    assert_clean(result, HF, DB_PASS)


def test_console_script_path(tmp_path: Path) -> None:
    """The installed entry point (a real process, real stderr), not only main() in-process."""
    script = _script(tmp_path, SGLANG_SCRIPT)
    # A secret only in the caller's environment (by name) is masked too: the script's server inherits it.
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "MY_TOKEN": "envTok12"}
    for fmt in FORMATS:
        proc = subprocess.run(
            [sys.executable, "-m", "argtrace", "check", "--format", fmt, "--no-shellcheck", "--no-resolve",
             str(script)],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        result = CliResult(proc.returncode, proc.stdout, proc.stderr)
        assert_clean(result, *ALL, "envTok12")
