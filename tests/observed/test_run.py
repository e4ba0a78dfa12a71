"""``argtrace run``: real launch scripts executed with the server start intercepted."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.observed.fake_server import fake_site

HF = "hf_plantedTOKENabcdefghijklmnop0123"
KEY = "sk-planted-api-key-0123456789abcdef"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def launch_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_site(tmp_path / "site")
    (tmp_path / "marker").mkdir()
    monkeypatch.setenv("ARGTRACE_TEST_MARKER_DIR", str(tmp_path / "marker"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    return tmp_path


SEED = f"""#!/bin/bash
# the seed's situation: kill old servers, start in the background, wait for health
pkill -f sglang.launch_server
rm -f server.log
GPU=$1
PORT=${{2:-30000}}
export CUDA_VISIBLE_DEVICES=$GPU
export HF_TOKEN={HF}
nohup python3 -m sglang.launch_server --model-path /models/Qwen3.6-27B \\
    --port "$PORT" --mamba-scheduler-strategy extra_buffer --api-key {KEY} > server.log 2>&1 &
echo "started with token {HF}"
until curl -s "http://127.0.0.1:$PORT/health"; do sleep 5; done
"""


def test_run_captures_exact_argv_env_and_stops_before_the_server(launch_dir: Path) -> None:
    script = _write(launch_dir / "launch_mtp.sh", SEED)
    (launch_dir / "server.log").write_text("keep me\n")
    result = run_cli(["run", "--format", "json", str(script), "0", "30000"], cwd=launch_dir)
    assert result.status in (0, 1), result.stderr
    data = result.json
    capture = data["capture"]
    assert capture["ran"] is True and len(capture["servers"]) == 1
    server = capture["servers"][0]
    argv = server["argv"]
    assert argv[1:3] == ["-m", "sglang.launch_server"]
    assert argv[3:9] == [
        "--model-path",
        "/models/Qwen3.6-27B",
        "--port",
        "30000",
        "--mamba-scheduler-strategy",
        "extra_buffer",
    ]
    assert server["env"]["CUDA_VISIBLE_DEVICES"] == "0"
    assert server["cwd"] == str(launch_dir)
    assert server["framework_version"] == "0.5.10.post1"
    assert server["python_version"] and server["interpreter"]
    assert server["heavy_modules_loaded"] == []
    # The probe ended the process before the package's entry module ran.
    assert not (launch_dir / "marker" / "STARTED").exists()
    # Recorders: nothing killed, nothing removed, no HTTP.
    recorded = [" ".join(c) for c in capture["recorded_commands"]]
    assert any(c.startswith("pkill -f sglang.launch_server") for c in recorded)
    assert any(c.startswith("rm -f server.log") for c in recorded)
    assert any(c.startswith("curl") for c in recorded)
    assert "PR108" in result.codes()
    # The probe's own variables never show in the capture.
    assert not any(k.startswith("ARGTRACE_PROBE") for k in server["env"])
    assert "argtrace-run-" not in server["env"].get("PATH", "")
    assert "argtrace-run-" not in server["env"].get("PYTHONPATH", "")
    # Identical to the static prediction: no argv disagreement.
    assert "PR100" not in result.codes()


def test_run_redacts_planted_secrets_in_json_and_text(launch_dir: Path) -> None:
    script = _write(launch_dir / "launch.sh", SEED)
    for fmt in ("json", "text"):
        result = run_cli(["run", "--format", fmt, str(script), "0"], cwd=launch_dir)
        assert result.status in (0, 1), result.stderr
        assert HF not in result.stdout and KEY not in result.stdout, fmt
        assert "<redacted:" in result.stdout
    shown = run_cli(["run", "--format", "json", "--show-secrets", str(script), "0"], cwd=launch_dir)
    assert KEY in shown.stdout


def test_run_ends_the_process_group(launch_dir: Path) -> None:
    script = _write(
        launch_dir / "launch.sh",
        "#!/bin/bash\n"
        "python3 -c 'import time; time.sleep(120)' &\n"
        "echo $! > helper.pid\n"
        "python3 -m sglang.launch_server --model-path /m &\n"
        "wait\n",
    )
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    assert result.status in (0, 1), result.stderr
    helper = int((launch_dir / "helper.pid").read_text())
    for _ in range(50):
        if not _alive(helper):
            break
        import time

        time.sleep(0.05)
    assert not _alive(helper)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def test_run_reports_runtime_value_and_difference(launch_dir: Path) -> None:
    script = _write(
        launch_dir / "launch.sh",
        "#!/bin/bash\n"
        "echo 'CHUNK=8192' > tuned.env\n"
        "source ./tuned.env\n"
        "PORT=$(cat port.txt)\n"
        'python3 -m sglang.launch_server --model-path /m --chunked-prefill-size "$CHUNK" --port "$PORT"\n',
    )
    (launch_dir / "tuned.env").write_text("CHUNK=4096\n")
    (launch_dir / "port.txt").write_text("30005\n")
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    codes = result.codes()
    assert "PR100" in codes and "PR103" in codes
    pr103 = next(f for f in result.json["findings"] if f["code"] == "PR103")
    assert "30005" in pr103["message"]
    setting = next(s for s in result.json["settings"] if s["name"] == "chunked_prefill_size")
    observed = [h for h in setting["history"] if h.get("observed")]
    assert observed and observed[0]["value"] == "8192"


def test_run_refuses_isolated_absolute_interpreter(launch_dir: Path) -> None:
    script = _write(
        launch_dir / "launch.sh",
        "#!/bin/bash\ntouch ran.txt\n/usr/bin/python3 -I -m sglang.launch_server --model-path /m\n",
    )
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    assert result.status == 1
    assert "PR106" in result.codes()
    assert not (launch_dir / "ran.txt").exists()
    assert result.json["capture"]["ran"] is False


def test_run_isolated_bare_interpreter_is_recorded_by_the_shim(launch_dir: Path) -> None:
    script = _write(
        launch_dir / "launch.sh", "#!/bin/bash\npython3 -I -m sglang.launch_server --model-path /m\n"
    )
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    assert result.json["capture"]["servers"][0]["via"] == "shim"
    assert not (launch_dir / "marker" / "STARTED").exists()


def test_run_command_string_and_missing_console_script(launch_dir: Path) -> None:
    result = run_cli(
        ["run", "--format", "json", "-c", "sglang serve /models/qwen --port 30000"], cwd=launch_dir
    )
    codes = result.codes()
    # No `sglang` console script on this PATH: the launch would fail with "command not found".
    assert "PR110" in codes
    assert result.json["capture"]["missing_commands"] == ["sglang"]


def test_run_no_stubs_runs_commands_for_real(launch_dir: Path) -> None:
    (launch_dir / "old.log").write_text("x")
    script = _write(
        launch_dir / "launch.sh",
        "#!/bin/bash\nrm -f old.log\npython3 -m sglang.launch_server --model-path /m\n",
    )
    result = run_cli(["run", "--format", "json", "--no-stubs", str(script)], cwd=launch_dir)
    assert "will run for real" in result.stderr
    assert not (launch_dir / "old.log").exists()
    assert "PR108" not in result.codes()


def _resolver_python(version: str) -> str | None:
    try:
        from argtrace.resolver.environments import env_python, find_environment
    except ImportError:
        return None
    manifest = find_environment("sglang", version)
    if manifest is None:
        return None
    python = env_python(Path(manifest.path))
    return str(python) if python.exists() else None


@pytest.mark.frameworks
@pytest.mark.parametrize("version", ["0.5.10.post1", "0.5.23"])
def test_run_against_a_real_sglang_install(
    tmp_path: Path, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _resolver_python(version)
    if python is None:
        pytest.skip(f"no resolver environment for sglang {version}")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    script = _write(
        tmp_path / "launch.sh",
        f"#!/bin/bash\n{python} -m sglang.launch_server --model-path /models/qwen --port 30000 --tp-size 2\n",
    )
    result = run_cli(["run", "--format", "json", "--timeout", "60", str(script)], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    capture = result.json["capture"]
    assert len(capture["servers"]) == 1, capture
    server = capture["servers"][0]
    assert server["framework_version"] == version
    assert server["framework_location"] and "site-packages" in server["framework_location"]
    # Stopped in sitecustomize: neither torch nor sglang were imported; the server never started.
    assert server["heavy_modules_loaded"] == []
    assert "server_args=" not in capture["output_tail"]
    assert "PR107" not in result.codes() or result.json["framework"]["version"] != version


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("docker run --gpus all img python3 -m sglang.launch_server --model-path /m", "container"),
        ("env -i python3 -m sglang.launch_server --model-path /m", "env -i"),
        ("sudo python3 -m sglang.launch_server --model-path /m", "sudo"),
        ("/usr/bin/python3 -E -m sglang.launch_server --model-path /m", "-I/-E/-S"),
        ("{tmp}/bin/sglang serve /m", "not a Python console script"),
    ],
)
def test_refusal_reasons(tmp_path: Path, line: str, reason: str) -> None:
    import shutil

    (tmp_path / "bin").mkdir()
    shutil.copy("/bin/true", tmp_path / "bin" / "sglang")  # a compiled launcher, not Python
    script = _write(tmp_path / "launch.sh", f"#!/bin/bash\ntouch ran.txt\n{line.format(tmp=tmp_path)}\n")
    result = run_cli(["run", "--format", "json", str(script)], cwd=tmp_path)
    assert "PR106" in result.codes(), result.json["findings"]
    message = next(f["message"] for f in result.json["findings"] if f["code"] == "PR106")
    assert reason in message
    assert not (tmp_path / "ran.txt").exists()


def _resolver_dir(framework: str, version: str) -> Path | None:
    try:
        from argtrace.resolver.environments import find_environment
    except ImportError:
        return None
    manifest = find_environment(framework, version)
    return Path(manifest.path) if manifest is not None else None


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("framework", "version", "line"),
    [
        (
            "sglang",
            "0.5.23",
            "source {env}/bin/activate\nsglang serve --model-path /models/qwen --port 30001",
        ),
        ("vllm", "0.33.0", "export PATH={env}/bin:$PATH\nvllm serve /models/qwen --max-num-seqs 64"),
    ],
)
def test_run_real_console_scripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, framework: str, version: str, line: str
) -> None:
    env_dir = _resolver_dir(framework, version)
    if env_dir is None or not (env_dir / "bin" / framework).exists():
        pytest.skip(f"no resolver environment with the {framework} console script")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    script = _write(tmp_path / "launch.sh", "#!/bin/bash\n" + line.format(env=env_dir) + "\n")
    result = run_cli(["run", "--format", "json", str(script)], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    server = result.json["capture"]["servers"][0]
    assert server["argv"][1].endswith(f"/bin/{framework}") and server["argv"][2] == "serve"
    assert server["framework_version"] == version and server["heavy_modules_loaded"] == []
    codes = result.codes()
    assert "PR100" not in codes and "PR109" not in codes and "PR102" not in codes


def test_other_python_processes_keep_their_own_sitecustomize(launch_dir: Path) -> None:
    theirs = launch_dir / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import os\nos.environ['THEIRS_LOADED'] = '1'\n")
    script = _write(
        launch_dir / "launch.sh",
        f'#!/bin/bash\nexport PYTHONPATH="{theirs}:$PYTHONPATH"\n'
        'python3 -c \'import os; print("helper sees", os.environ.get("THEIRS_LOADED"))\'\n'
        "python3 -m sglang.launch_server --model-path /m\n",
    )
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    capture = result.json["capture"]
    assert "helper sees 1" in capture["output_tail"]
    assert len(capture["servers"]) == 1
    assert capture["servers"][0]["env"]["PYTHONPATH"].startswith(str(theirs))


@pytest.mark.parametrize(("flags", "refused"), [("-S", True), ("-s -E", True), ("", False)])
def test_run_python3_wrapper_on_path(
    launch_dir: Path, monkeypatch: pytest.MonkeyPatch, flags: str, refused: bool
) -> None:
    """`python3` found on PATH is a shell wrapper: with -S/-E the probe cannot load (refused, nothing runs);
    a plain wrapper (like pyenv's shims) passes PYTHONPATH on and is intercepted."""
    import sys

    (launch_dir / "bin").mkdir()
    wrapper = _write(launch_dir / "bin" / "python3", f'#!/bin/sh\nexec {sys.executable} {flags} "$@"\n')
    monkeypatch.setenv("PATH", f"{launch_dir / 'bin'}:/usr/bin:/bin")
    script = _write(
        launch_dir / "launch.sh",
        "#!/bin/bash\ntouch ran.txt\npython3 -m sglang.launch_server --model-path /m\n",
    )
    result = run_cli(["run", "--format", "json", str(script)], cwd=launch_dir)
    assert result.status == 1 if refused else result.status in (0, 1), result.stderr
    messages = [f["message"] for f in result.json["findings"] if f["code"] == "PR106"]
    if refused:
        shown = " ".join(w for w in flags.split() if w != "-s")
        assert messages == [
            f"not run: `python3` is {wrapper}, a wrapper script that runs Python with {shown}: the probe "
            "would not load, the server would start for real"
        ]
        assert not (launch_dir / "ran.txt").exists()
    else:
        assert messages == []
        assert result.json["capture"]["servers"][0]["interpreter"] == sys.executable
    assert not (launch_dir / "marker" / "STARTED").exists()


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        (
            "vllm.service",
            "[Unit]\nDescription=vLLM\n\n[Service]\nExecStart=/usr/bin/touch {tmp}/ran.txt\n"
            "ExecStartPost=/opt/venv/bin/vllm serve /m --port 8000\n",
            "a systemd unit is not a script: systemd's manager starts its ExecStart= (`systemctl start`), "
            "where argtrace cannot intercept it",
        ),
        (
            "serve.sky.yaml",
            "resources:\n  accelerators: H100:1\nrun: |\n"
            "  touch {tmp}/ran.txt\n  vllm serve /m --port 8000\n",
            "a SkyPilot task is not a script: `sky launch` runs its setup: and run: on the cluster's nodes, "
            "where argtrace cannot reach",
        ),
    ],
)
def test_run_refuses_a_launch_file_that_is_no_script(tmp_path: Path, name: str, text: str, says: str) -> None:
    path = _write(tmp_path / name, text.format(tmp=tmp_path))
    result = run_cli(["run", "--format", "json", str(path)], cwd=tmp_path)
    messages = [f["message"] for f in result.json["findings"] if f["code"] == "PR106"]
    assert messages == [f"not run: {says}"]
    assert not (tmp_path / "ran.txt").exists()
