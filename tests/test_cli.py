from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from argtrace.check_options import starting_environment
from argtrace.cli import _load_commands, _subparser, build_parser
from argtrace.commands.check import apply_rest, split_argv
from argtrace.frameworks.schema import bundled_versions
from argtrace.model import UsageError
from tests.conftest import run_cli

# the oldest bundled SGLang release (every bundled one accepts --model-path and --port)
OLDEST_SGLANG = bundled_versions("sglang", include_user=False)[0]


def check_parser() -> argparse.ArgumentParser:
    return _subparser(build_parser(_load_commands()), "check")


def split(words: list[str]) -> argparse.Namespace:
    parser = check_parser()
    options, rest = split_argv(words, parser)
    args = parser.parse_args(options)
    apply_rest(args, rest, parser)
    return args


def test_everything_after_the_script_belongs_to_the_script() -> None:
    args = split(["--format", "json", "launch.sh", "0", "--port", "30000", "--format", "text"])
    assert args.format == "json"
    assert args.script == "launch.sh"
    assert args.script_args == ["0", "--port", "30000", "--format", "text"]


def test_argtrace_options_after_the_script_get_a_note_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = split(["launch.sh", "0", "--format=json", "--gpu", "h100", "--port", "30000", "--format", "text"])
    assert args.script_args == ["0", "--format=json", "--gpu", "h100", "--port", "30000", "--format", "text"]
    assert args.format == "text"  # the default: the words stay the script's
    err = capsys.readouterr().err
    assert err == (
        "argtrace check: note: after SCRIPT, `--format`, `--gpu` are the script's arguments ($1 ...), not "
        "argtrace check's; put argtrace check's options before SCRIPT (argtrace check [OPTIONS] SCRIPT "
        "[SCRIPT_ARGS...])\n"
    )


def test_script_options_of_its_own_get_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    split(["launch.sh", "0", "--port", "30000", "-h", "--help"])
    assert capsys.readouterr().err == ""


def test_dash_c_options_before_and_after_and_dollar_zero_after_double_dash() -> None:
    command = "python -m sglang.launch_server --port $1"
    args = split(["-c", command, "--format", "json", "--", "zero", "30000"])
    assert args.command_string == "python -m sglang.launch_server --port $1"
    assert args.format == "json"
    assert args.script is None
    assert args.script_args == ["zero", "30000"]


def test_option_values_are_not_taken_for_the_script() -> None:
    args = split(["--env", "A=1", "--server", "2", "s.sh", "x"])
    assert (args.env, args.server, args.script, args.script_args) == (["A=1"], 2, "s.sh", ["x"])


def test_env_assignments_apply_after_clean_env() -> None:
    env = starting_environment({"PATH": "/bin", "HOME": "/root"}, ["A=1", "B=", "C=x=y"], clean=True)
    assert env == {"A": "1", "B": "", "C": "x=y"}
    kept = starting_environment({"PATH": "/bin"}, ["PATH=/opt/bin"], clean=False)
    assert kept == {"PATH": "/opt/bin"}


@pytest.mark.parametrize("bad", ["KEY", "=x", "1A=2", "A-B=1"])
def test_env_without_a_valid_assignment_is_a_usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="--env"):
        starting_environment({}, [bad], clean=False)


def test_env_key_alone_exits_2() -> None:
    result = run_cli(["check", "--env", "KEY", "-c", "true"])
    assert result.status == 2
    assert "--env needs KEY=VALUE" in result.stderr


def test_missing_script_exits_2_with_a_message(tmp_path: Path) -> None:
    result = run_cli(["check", str(tmp_path / "nope.sh")])
    assert result.status == 2
    assert result.stderr.strip() == f"argtrace check: {tmp_path / 'nope.sh'}: no such file"
    assert result.stdout == ""


def test_directory_exits_2(tmp_path: Path) -> None:
    result = run_cli(["check", str(tmp_path)])
    assert result.status == 2
    assert "is a directory" in result.stderr


def test_no_script_and_no_command_is_usage() -> None:
    result = run_cli(["check", "--format", "json"])
    assert result.status == 2
    assert "SCRIPT (or -c COMMAND) is required" in result.stderr


def test_no_command_prints_help_and_exits_2() -> None:
    assert run_cli([]).status == 2


def test_version() -> None:
    assert run_cli(["--version"]).status == 0


def test_a_removed_flag_is_certain_only_for_a_known_version(tmp_path: Path) -> None:
    # No vLLM for this interpreter and no other evidence: the release is unknown, the launch is analysed as
    # the newest bundled release that accepts it (0.17.1 is the last with --swap-space), and PR011 says which
    # release would refuse it; with the release named it is the error the server would give.
    python = tmp_path / "python3"
    python.symlink_to("/bin/true")  # an interpreter with no vllm: the version cannot be read
    command = f"{python} -m vllm.entrypoints.openai.api_server --model /m --swap-space 8"
    unknown = run_cli(["check", "--no-resolve", "--format", "json", "-c", command])
    assert unknown.json["framework"] == {
        "name": "vllm",
        "version": None,
        "source": "none",
        "analysed_with": "0.17.1",
        "accepted_by": [
            *("0.6.6.post1", "0.7.3", "0.8.5.post1", "0.9.2", "0.10.2", "0.11.0", "0.11.2"),
            *("0.12.0", "0.13.0", "0.14.1", "0.15.1", "0.16.0", "0.17.1"),
        ],
    }
    assert [f["code"] for f in unknown.json["findings"] if f["severity"] != "info"] == []
    [finding] = [f for f in unknown.json["findings"] if f["code"] == "PR011"]
    assert finding["message"] == (
        "nothing shows which vllm release runs (no --framework-version, log, installed package, image tag or "
        "pip line): analysed as vllm 0.17.1, the newest bundled release that accepts every flag and variable "
        "of the launch (accepted by 0.6.6.post1-0.17.1); vllm 0.18.1-0.33.0 do not know --swap-space"
    )
    assert unknown.status == 0
    named = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0", "-c", command]
    )
    [finding] = [f for f in named.json["findings"] if f["code"] == "PA003"]
    flagged = "--swap-space was accepted up to vllm 0.17.1 but vllm 0.33.0 does not know it: the server "
    flagged += 'refuses to start ("unrecognized arguments", exit 2)'
    # argparse leaves the unknown flag over alone: its value '8' fills the optional positional model_tag
    # (0.10 on), so removing the flag alone would serve a model named '8'
    flagged += "; argparse then reads the word after it, '8', as model_tag"
    assert (finding["severity"], finding["message"], finding["basis"]) == ("error", flagged, "schema")
    assert finding["fix"] == "remove the flag and '8' after it, or pin the older release"
    assert named.json["framework"] == {
        "name": "vllm",
        "version": "0.33.0",
        "source": "bundled-schema",
        "evidence": "named with --framework-version",
    }


LAUNCH = "python3 -m sglang.launch_server --model-path /m --port 30000\n"


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("-1", "--pid -1: a process id is a positive integer"),
        ("0", "--pid 0: a process id is a positive integer"),
        ("abc", "--pid needs a process id or 'auto', got 'abc'"),
        ("99999999999999999999", "--pid 99999999999999999999: no such process"),
    ],
)
def test_pid_that_names_no_process_is_a_usage_error(tmp_path: Path, pid: str, message: str) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(LAUNCH)
    check = run_cli(["check", "--no-shellcheck", f"--pid={pid}", str(script)])
    assert (check.status, check.stdout, check.stderr) == (2, "", f"argtrace check: {message}\n")
    if pid != "abc":  # ps --pid is an int option: argparse itself refuses 'abc' (exit 2)
        ps = run_cli(["ps", f"--pid={pid}"])
        assert (ps.status, ps.stdout, ps.stderr) == (2, "", f"argtrace ps: {message}\n")


@pytest.mark.parametrize("host", ["", " ", "\t"])
def test_empty_host_is_a_usage_error_not_a_local_run(host: str) -> None:
    result = run_cli(["--host", host, "ps"])
    assert (result.status, result.stdout, result.stderr) == (
        2,
        "",
        f"argtrace ps: --host {host!r}: empty host name\n",
    )


def test_path_components_too_long_are_not_crashes(tmp_path: Path) -> None:
    long = "/opt/" + "a" * 300
    script = tmp_path / "launch.sh"
    script.write_text(f"{long}/bin/python3 -m sglang.launch_server --model-path {long}/model --port 30000\n")
    result = run_cli(["check", "--no-shellcheck", "--format", "json", str(script)])
    assert result.status in (0, 1) and result.stderr == ""
    assert result.json["servers"][0]["argv"][0] == f"{long}/bin/python3"
    # The interpreter and the model path are simply not on this machine: findings, and the rest goes on.
    assert [(f["code"], f["message"]) for f in result.json["findings"]] == [
        (
            "PR011",
            "nothing shows which sglang release runs (no --framework-version, log, installed package, image "
            "tag or pip line): analysed as sglang 0.5.23, the newest bundled release that accepts every flag "
            f"and variable of the launch (accepted by {OLDEST_SGLANG}-0.5.23)",
        ),
        (
            "PR007",
            f"`{long}/bin/python3` does not exist on this machine; the framework version installed for it "
            "could not be read",
        ),
        (
            "RS004",
            f"resolution skipped: no local config.json for model '{long}/model'; model-dependent defaults "
            "cannot be resolved",
        ),
    ]
    # An explicit --model-config that cannot hold a model config is a usage error (issue 11): one line.
    config = run_cli(["check", "--no-shellcheck", "--format", "json", "--model-config", long, str(script)])
    assert (config.status, config.stdout, config.stderr) == (
        2,
        "",
        f"argtrace check: --model-config {long}: file name too long\n",
    )


def test_python_that_is_a_fifo_is_refused_unopened(tmp_path: Path) -> None:
    import os
    import signal

    os.mkfifo(tmp_path / "python3")
    script = tmp_path / "launch.sh"
    script.write_text(LAUNCH)

    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("blocked on the FIFO")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(20)  # reading the "interpreter" to see whether it is ELF would block forever
    try:
        result = run_cli(["check", "--no-shellcheck", "--python", "./python3", "launch.sh"], cwd=tmp_path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == "argtrace check: --python ./python3: is a named pipe (FIFO), not an interpreter\n"


def test_a_fifo_in_the_hugging_face_cache_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal

    repo = tmp_path / "hub" / "models--org--model"
    (repo / "refs").mkdir(parents=True)
    (repo / "snapshots" / "abc").mkdir(parents=True)
    os.mkfifo(repo / "refs" / "main")  # reading the snapshot name from it would block forever
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)

    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("blocked on the FIFO")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(30)
    try:
        result = run_cli(
            [
                "check",
                "--no-shellcheck",
                "--format",
                "json",
                "-c",
                "python3 -m sglang.launch_server --model-path org/model",
            ]
        )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.status == 0 and result.stderr == ""
    assert [(f["code"], f["message"]) for f in result.json["findings"] if f["code"] != "PR011"] == [
        (
            "RS004",
            "resolution skipped: no local config.json for model 'org/model'; model-dependent defaults cannot "
            "be resolved",
        )
    ]
