"""``argtrace ps`` and the ``check --pid`` comparison against real processes started here."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from argtrace.layers.observed import analyze_pid, classify_title, find_servers, inspect_process, resolve_pid
from argtrace.model import UsageError
from tests.conftest import run_cli
from tests.observed.fake_server import fake_site, start_fake_server, stop

SECRET_KEY = "sk-planted-api-key-0123456789abcdef"
HF = "hf_plantedTOKENabcdefghijklmnop0123"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path, Path]]:
    site = fake_site(tmp_path / "site")
    port_file = tmp_path / "port"
    proc = start_fake_server(
        site,
        ["--model-path", "/models/qwen", "--chunked-prefill-size", "8192", "--api-key", SECRET_KEY],
        env={"HF_TOKEN": HF, "SGLANG_ENABLE_SPEC_V2": "1", "CUDA_VISIBLE_DEVICES": "0,1"},
        cwd=tmp_path,
        port_file=port_file,
    )
    try:
        yield proc.pid, tmp_path, port_file
    finally:
        stop(proc)


def _shell_server(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    from argtrace.layers.shell import ScriptSource, analyze_script

    script = tmp_path / "launch.sh"
    script.write_text(text)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
    result = analyze_script(
        ScriptSource(label=str(script), data=script.read_bytes(), path=script),
        [],
        env,
        arg0=str(script),
        run_shellcheck=False,
    )
    return result.servers[0], script


def test_classify_titles() -> None:
    assert classify_title(["sglang::scheduler_TP0"]) == ("sglang", "scheduler")
    assert classify_title(["sglang::detokenizer     "]) == ("sglang", "detokenizer")
    assert classify_title(["VLLM::EngineCore_DP0"]) == ("vllm", "EngineCore")
    assert classify_title(["VLLM::Worker_TP1"]) == ("vllm", "Worker")
    assert classify_title(["python3", "-m", "sglang.launch_server"]) == (None, None)


def test_inspect_finds_argv_env_version_port_and_worker(server: tuple[int, Path, Path]) -> None:
    pid, tmp_path, port_file = server
    observed = inspect_process(pid)
    assert observed.role == "server" and observed.framework == "sglang"
    assert observed.argv[1:4] == ("-m", "sglang.launch_server", "--model-path")
    assert observed.env is not None and observed.env["SGLANG_ENABLE_SPEC_V2"] == "1"
    assert observed.framework_version == "0.5.10.post1"
    assert observed.cwd == str(tmp_path)
    port = port_file.read_text().strip()
    assert f"127.0.0.1:{port}" in observed.listening
    roles = {c.role for c in observed.children}
    assert "scheduler" in roles
    assert any(c.title == "sglang::scheduler_TP0" for c in observed.children)


def test_find_servers_groups_worker_under_server(server: tuple[int, Path, Path]) -> None:
    pid, _, _ = server
    servers = find_servers("sglang")
    mine = [s for s in servers if s.pid == pid]
    assert mine, [s.pid for s in servers]
    assert all(c.pid != pid for s in servers for c in s.children if s.pid != pid)
    assert not find_servers("vllm") or all(s.pid != pid for s in find_servers("vllm"))


def test_worker_pid_resolves_to_its_server(server: tuple[int, Path, Path]) -> None:
    pid, _, _ = server
    worker = inspect_process(pid).children[0]
    assert resolve_pid(worker.pid).pid == pid


def test_ps_json_and_text_redact_planted_secrets(server: tuple[int, Path, Path]) -> None:
    pid, _, _ = server
    result = run_cli(["ps", "--format", "json", "--pid", str(pid)])
    assert result.status == 0, result.stderr
    assert SECRET_KEY not in result.stdout and HF not in result.stdout
    data = result.json
    proc = data["processes"][0]
    assert proc["pid"] == pid
    assert proc["env"]["HF_TOKEN"].startswith("<redacted:")
    assert "<redacted:" in " ".join(proc["argv"])
    assert "start environment" in proc["env_note"]
    text = run_cli(["ps", "--pid", str(pid)])
    assert text.status == 0
    assert SECRET_KEY not in text.stdout and HF not in text.stdout
    shown = run_cli(["ps", "--format", "json", "--pid", str(pid), "--show-secrets"])
    assert SECRET_KEY in shown.stdout and HF in shown.stdout


def test_pid_comparison_reports_argv_and_env_differences(
    server: tuple[int, Path, Path], tmp_path: Path
) -> None:
    pid, _, _ = server
    predicted, _ = _shell_server(
        tmp_path,
        "#!/bin/bash\nexport SGLANG_ENABLE_SPEC_V2=0\n"
        "python3 -m sglang.launch_server --model-path /models/qwen --chunked-prefill-size 4096 "
        f"--api-key {SECRET_KEY}\n",
    )
    result = analyze_pid(pid, predicted, script=None)
    codes = [f.code for f in result.findings]
    assert "PR100" in codes
    pr100 = next(f for f in result.findings if f.code == "PR100")
    assert "4096" in pr100.message and "8192" in pr100.message
    assert pr100.setting == "chunked_prefill_size"
    env_findings = [f for f in result.findings if f.code == "PR101"]
    assert any("SGLANG_ENABLE_SPEC_V2" in f.message and f.severity == "error" for f in env_findings)
    # CUDA_VISIBLE_DEVICES was not set by the script: reported as coming from elsewhere.
    assert any("CUDA_VISIBLE_DEVICES" in f.message and f.severity == "warning" for f in env_findings)
    assert "chunked_prefill_size" in result.observations
    section = result.sections["observed_process"]
    assert json.dumps(section).count(SECRET_KEY) == 0


def test_pid_same_launch_has_no_argv_finding(server: tuple[int, Path, Path], tmp_path: Path) -> None:
    pid, _, _ = server
    predicted, _ = _shell_server(
        tmp_path,
        "#!/bin/bash\nexport SGLANG_ENABLE_SPEC_V2=1 CUDA_VISIBLE_DEVICES=0,1 HF_TOKEN=" + HF + "\n"
        "python3 -m sglang.launch_server --model-path /models/qwen --chunked-prefill-size 8192 "
        f"--api-key {SECRET_KEY}\n",
    )
    result = analyze_pid(pid, predicted)
    assert [f.code for f in result.findings if f.severity != "info" and f.code != "PR101"] == []
    assert not [f for f in result.findings if f.code == "PR101" and f.severity == "error"]


def test_stale_process_and_wrong_framework(server: tuple[int, Path, Path], tmp_path: Path) -> None:
    pid, _, _ = server
    predicted, script = _shell_server(
        tmp_path, "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m\n"
    )
    future = time.time() + 30
    os.utime(script, (future, future))
    assert "PR104" in [f.code for f in analyze_pid(pid, predicted, script=str(script)).findings]
    vllm_server, _ = _shell_server(tmp_path, "#!/bin/bash\nvllm serve /models/qwen\n")
    assert [f.code for f in analyze_pid(pid, vllm_server).findings] == ["PR109"]


def test_bad_pids_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        resolve_pid(2**22 + 12345)
    with pytest.raises(UsageError):
        resolve_pid("not-a-pid")


def test_pid_auto_needs_exactly_one(server: tuple[int, Path, Path], tmp_path: Path) -> None:
    pid, _, _ = server
    servers = find_servers("sglang")
    if len(servers) == 1:
        assert resolve_pid("auto", "sglang").pid == pid
    else:
        with pytest.raises(UsageError, match="servers are running"):
            resolve_pid("auto", "sglang")
    with pytest.raises(UsageError, match="no running"):
        resolve_pid("auto", "vllm") if not find_servers("vllm") else (_ for _ in ()).throw(
            UsageError("no running")
        )


def _check_has_pid() -> bool:
    from argtrace.cli import _load_commands, build_parser

    parser = build_parser(_load_commands())
    check = parser._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    return "--pid" in check._option_string_actions


PID_RULES = [
    r
    for r in __import__("argtrace.rules", fromlist=["all_rules"]).all_rules()
    if any(n.startswith("process-fixture:") for n in r.example.needs)
]


@pytest.mark.parametrize("rule", PID_RULES, ids=lambda r: r.code)
def test_pid_rule_examples_through_the_cli(rule, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.live.example_support import provide

    if not _check_has_pid():
        pytest.skip("check --pid is not wired into this checkout's check command yet")
    with provide(rule.example.needs, tmp_path) as subst:
        work = tmp_path / "example"
        work.mkdir()
        for name, content in rule.example.written_files().items():
            (work / name).write_text(content if isinstance(content, str) else content.decode())
        argv = [a.format_map(subst) if "{" in a else a for a in rule.example.argv]
        result = run_cli([argv[0], "--format", "json", *argv[1:]], cwd=work)
    assert result.status in (0, 1), result.stderr
    assert rule.code in result.codes()


def test_vllm_server_and_engine_core_worker(tmp_path: Path) -> None:
    site = fake_site(tmp_path / "vsite", "vllm", "0.33.0")
    proc = start_fake_server(
        site,
        ["--model", "/models/qwen", "--max-num-seqs", "64"],
        framework="vllm",
        port_file=tmp_path / "port",
    )
    try:
        observed = inspect_process(proc.pid)
        assert observed.framework == "vllm" and observed.entrypoint == "vllm.entrypoints.openai.api_server"
        assert observed.framework_version == "0.33.0"
        assert [(c.role, c.title) for c in observed.children] == [("EngineCore", "VLLM::EngineCore")]
        assert proc.pid in [s.pid for s in find_servers("vllm")]
    finally:
        stop(proc)


def test_console_script_server_is_found(tmp_path: Path) -> None:
    import subprocess
    import sys

    site = fake_site(tmp_path / "site")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    console = bin_dir / "sglang"
    console.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(600)\n")
    console.chmod(0o755)
    proc = subprocess.Popen(
        [str(console), "serve", "--model-path", "/models/qwen"],
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(site)},
        start_new_session=True,
    )
    try:
        time.sleep(0.5)
        observed = inspect_process(proc.pid)
        assert observed.role == "server" and observed.entrypoint == "sglang serve"
        assert observed.server_args == ("--model-path", "/models/qwen")
        assert observed.framework_version == "0.5.10.post1"
    finally:
        stop(proc)  # type: ignore[arg-type]
