"""Wrappers in front of a server, against the real programs (issue 17).

Each line is run for real: the wrapper (coreutils timeout/stdbuf/nohup/nice, util-linux setsid/taskset/
chrt/ionice, numactl, GNU time, bash's exec/command/time, uv run) starts the real python3 with a stand-in
``sglang/launch_server.py`` on PYTHONPATH that records the arguments the server's argument parser gets.
argtrace's ``detect_server`` must find the start and name the same arguments (``argv[server_args_start:]``);
where the real program runs no server (``taskset -p``, an option it refuses), argtrace must find none.
The option tables come from the programs' ``--help`` (scripts/gen_wrapper_options.py); scripts/ci_apt
installs numactl and time, uv comes with the dev extra.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.frameworks.detect import detect_server
from argtrace.frameworks.wrappers import options_of, scan_options

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fake")
    (root / "sglang").mkdir()
    (root / "sglang" / "__init__.py").write_text("")
    # records what sglang's parser would get: sys.argv[1:] under python -m (to a fixed path, since
    # ``exec -c`` hands on no environment)
    rec = str(root / "rec.json")
    (root / "sglang" / "launch_server.py").write_text(
        f"import json, sys\nwith open({rec!r}, 'w') as f:\n    json.dump(sys.argv[1:], f)\n"
    )
    return root


def _real(line: str, fake: Path, tmp: Path, *, shell: bool = False) -> list[str] | None:
    """What the stand-in server got when ``line`` runs (``None``: it did not run)."""
    rec = fake / "rec.json"
    rec.unlink(missing_ok=True)
    # the stand-in is found from the working directory (python -m puts it first on sys.path), so it needs
    # no environment: ``exec -c`` hands on none
    env = {"PATH": f"{Path(UV).parent if UV else '/usr/bin'}:/usr/bin:/bin"}
    env |= {"HOME": str(tmp), "UV_CACHE_DIR": str(tmp / "uvcache")}
    argv = ["/bin/bash", "-c", line] if shell else shlex.split(line)
    subprocess.run(argv, env=env, cwd=fake, capture_output=True, timeout=60)
    return json.loads(rec.read_text()) if rec.exists() else None


def _predicted(line: str) -> list[str] | None:
    det = detect_server(shlex.split(line))
    return None if det is None else shlex.split(line)[det.server_args_start :]


PY = PYTHON + " -m sglang.launch_server"
PROGRAM_CASES = [
    f"timeout 10m {PY} --port 1",
    f"timeout -k 5 --sig=KILL 10m {PY} --port 2",  # getopt_long: an unambiguous prefix of --signal
    f"timeout -vk5 --preserve-status 1h {PY} --port 3",  # clustered flags, attached value
    f"timeout --kill-after 5 -s TERM 30 {PY} --tp 2",
    f"timeout -- 10 {PY} --port 4",
    f"stdbuf -oL -eL {PY} --port 5",
    f"stdbuf --output=L -i0 {PY} --port 6",
    f"nohup {PY} --port 7",
    f"nohup -- {PY} --port 8",
    f"nice -n 5 {PY} --port 9",
    f"nice -5 {PY} --port 10",  # coreutils nice's obsolete -N form
    f"nice --adj=3 {PY} --port 11",
    f"setsid {PY} --port 12",
    f"setsid -f -w {PY} --port 13",
    f"setsid --wait {PY} --port 14",
    f"taskset 0x1 {PY} --port 15",
    f"taskset -c 0 {PY} --port 16",
    f"taskset --cpu-list 0 {PY} --port 17",
    f"chrt -o 0 {PY} --port 18",
    f"chrt --batch 0 {PY} --port 19",
    f"ionice -c 3 {PY} --port 20",
    f"ionice -c2 -n7 {PY} --port 21",
    f"ionice --class 2 --classdata 4 -t {PY} --port 22",
    f"numactl -C 0 {PY} --port 23",
    f"numactl --physcpubind=0 --localalloc {PY} --port 24",
    f"numactl -i all {PY} --port 25",
    f"numactl --interleave all {PY} --port 26",
    f"/usr/bin/time -o /dev/null -f %e {PY} --port 27",
    f"/usr/bin/time --format=%e -q {PY} --port 28",
    f"timeout 10m nohup setsid taskset -c 0 nice -n 1 {PY} --port 29",  # nested
    # no server runs: another action, or an option the program refuses
    "taskset -p 1",
    "chrt -m",
    f"timeout --bogus 10 {PY} --port 30",
    f"numactl -physcpubind 0 {PY} --port 31",  # -p hyscpubind: numactl refuses the node name
    f"ionice -p 1 {PY} --port 32",
]


@pytest.mark.parametrize("line", PROGRAM_CASES)
def test_program_wrapper_hands_on_what_the_real_program_does(line: str, fake: Path, tmp_path: Path) -> None:
    if line.split()[0] in ("numactl", "/usr/bin/time") and shutil.which(line.split()[0]) is None:
        pytest.skip(f"{line.split()[0]} is not installed (scripts/ci_apt)")
    assert _predicted(line) == _real(line, fake, tmp_path)


BASH_CASES = [
    f"exec -a sglang-server {PY} --port 40",
    f"exec -c -a x {PY} --port 41",  # -c: an empty environment, so python3 is found by its path only
    f"exec -cl {PY} --port 42",
    f"exec -- {PY} --port 43",
    f"command {PY} --port 44",
    f"command -p {PY} --port 45",
    f"time -p {PY} --port 46",
    f"time {PY} --port 47",
    f"command -v {PY}",  # describes, runs nothing
]


@pytest.mark.parametrize("line", BASH_CASES)
def test_bash_builtin_wrapper(line: str, fake: Path, tmp_path: Path) -> None:
    assert _predicted(line) == _real(line, fake, tmp_path, shell=True)


needs_uv = pytest.mark.skipif(UV is None, reason="uv is in the dev extra")
UV_CASES = [
    "uv run --no-project --offline -p PYTHON -m sglang.launch_server --port 50",
    "uv run --no-project --offline --python=PYTHON --module sglang.launch_server --port 51",
    "uv --offline run --no-project -p PYTHON -m sglang.launch_server --tp 2",
    "uv run --no-project --offline -p PYTHON -- PYTHON -m sglang.launch_server --port 52",
    "uv run --no-project --offline -p PYTHON PYTHON -u -m sglang.launch_server --port 53",
    "uv run --no-project --offline --no-sync -q -p PYTHON -m sglang.launch_server --port 54",
    "uv -q --directory . run --no-project --offline -p PYTHON -m sglang.launch_server --port 55",
]


@needs_uv
@pytest.mark.parametrize("line", UV_CASES)
def test_uv_run(line: str, fake: Path, tmp_path: Path) -> None:
    line = line.replace("PYTHON", PYTHON)
    det = detect_server(shlex.split(line))
    assert det is not None and det.runner == f"uv run --python {PYTHON}"
    assert _predicted(line) == _real(line, fake, tmp_path)


def test_runner_labels_name_the_environment() -> None:
    cases = {
        "conda run -n vllm-env python -m vllm.entrypoints.openai.api_server": "conda run -n vllm-env",
        "conda run --no-capture-output -p /opt/env vllm serve m": "conda run -p /opt/env",
        "mamba run -n e vllm serve m": "mamba run -n e",
        "micromamba run -n sgl -e A=1 python3 -m sglang.launch_server": "micromamba run -n sgl",
        "pixi run -e cuda vllm serve m": "pixi run -e cuda",
        "poetry -C app run python -m sglang.launch_server": "poetry run",
        "pipx run --spec vllm==0.11.0 vllm serve m": "pipx run --spec vllm==0.11.0",
        "uv run --with vllm vllm serve m": "uv run",
    }
    for line, label in cases.items():
        det = detect_server(shlex.split(line))
        assert det is not None and det.runner == label, line


def test_getopt_prefix_and_ambiguity() -> None:
    spec = options_of("timeout")
    assert spec is not None
    s = scan_options(["--sig=KILL", "--k", "5", "10"], 0, spec)
    assert (s.end, s.seen, s.error) == (3, [("signal", "KILL"), ("kill-after", "5")], False)
    # --ver: --verbose or --version, ambiguous: timeout refuses it
    assert scan_options(["--ver", "10"], 0, spec).error


def test_option_tables_match_the_installed_programs() -> None:
    """The generated table equals what the installed programs print (same versions only)."""
    data = json.loads((ROOT / "src/argtrace/data/wrapper_options.json").read_text())
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_wrapper_options as gen
    finally:
        sys.path.pop(0)
    for name, (help_argv, parser, version_argv, _family) in gen.PROGRAMS.items():
        if shutil.which(help_argv[0]) is None or gen._version(version_argv) != data[name]["version"]:
            continue
        now = {"gnu": gen._gnu, "numactl": gen._numactl, "systemd": gen._systemd}[parser](gen._run(help_argv))
        assert {k: data[name][k] for k in now} == now, name
    assert os.environ.get("CI") != "true" or shutil.which("numactl"), "scripts/ci_apt installs numactl"


# Through the shell layer: real bash runs the line with a recorder for python3 (tests/shell/recorder.py);
# argtrace's predicted argv and environment of the server must equal what the recorder got.
SHELL_CASES = [
    "export A B; command PY -m sglang.launch_server --port 60 -x",  # command's own options only
    "export A; command -p PY -m sglang.launch_server --port 61",
    "export A; exec -c PY -m sglang.launch_server --port 62",  # -c: an empty environment
    "export A; A=2 exec -ca srv PY -m sglang.launch_server --port 63",
    "export A; exec -a srv PY -m sglang.launch_server --port 64",
    "export A; stdbuf --out=L -e 0 PY -m sglang.launch_server --port 65",  # getopt prefix --out
    "export A; timeout --sig=TERM 1h nohup PY -m sglang.launch_server --port 66",
]


@pytest.mark.parametrize("line", SHELL_CASES)
def test_wrapper_in_a_script_hands_on_the_real_argv_and_environment(line: str, tmp_path: Path) -> None:
    from tests.shell.test_wrapper_env import _run

    got, want = _run(line, tmp_path)
    want.pop("unknown")
    assert got == want
