"""Real processes whose argv and environment look like an SGLang/vLLM server start.

For ``ps``, ``check --pid`` and ``run`` tests.

``fake_site(root, framework, version)`` writes a tiny package (``sglang`` or ``vllm``) with a
``<name>-<version>.dist-info`` so that ``importlib.metadata`` and argtrace's dist-info lookup find a version.
Its entry module, when it really runs, writes ``STARTED`` into ``ARGTRACE_TEST_MARKER_DIR`` (so a test can
assert that ``argtrace run``'s probe stopped the launch before it), listens on a TCP port of 127.0.0.1 and
starts one worker whose argv[0] is the title SGLang's scheduler sets with setproctitle
(``sglang::scheduler_TP0``) or vLLM's engine (``VLLM::EngineCore``).

``start_fake_server(...)`` starts ``python -m sglang.launch_server ARGS`` (or the vLLM module) for real with a
known environment and returns the ``Popen``; the caller ends it with :func:`stop` (by pid, process group).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

_ENTRY = """
import os, socket, subprocess, sys, time
marker = os.environ.get("ARGTRACE_TEST_MARKER_DIR")
if marker:
    with open(os.path.join(marker, "STARTED"), "w") as fh:
        fh.write(" ".join(sys.argv))
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen()
port_file = os.environ.get("ARGTRACE_TEST_PORT_FILE")
if port_file:
    with open(port_file, "w") as fh:
        fh.write(str(s.getsockname()[1]))
worker = subprocess.Popen([TITLE, "-c", "import time; time.sleep(600)"], executable=sys.executable)
try:
    time.sleep(600)
finally:
    worker.kill()
"""

_MODULES = {"sglang": "sglang/launch_server.py", "vllm": "vllm/entrypoints/openai/api_server.py"}
_TITLES = {"sglang": "sglang::scheduler_TP0", "vllm": "VLLM::EngineCore"}


def fake_site(root: Path, framework: str = "sglang", version: str = "0.5.10.post1") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    module = root / _MODULES[framework]
    for parent in reversed(module.relative_to(root).parents):
        if str(parent) != ".":
            (root / parent).mkdir(parents=True, exist_ok=True)
            (root / parent / "__init__.py").touch()
    module.write_text(f"TITLE = {_TITLES[framework]!r}\n" + _ENTRY)
    dist = root / f"{framework}-{version}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {framework}\nVersion: {version}\n")
    return root


def start_fake_server(
    site: Path,
    args: Sequence[str],
    *,
    framework: str = "sglang",
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    port_file: Path | None = None,
) -> subprocess.Popen[bytes]:
    module = "sglang.launch_server" if framework == "sglang" else "vllm.entrypoints.openai.api_server"
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root")}
    full_env["PYTHONPATH"] = str(site)
    if port_file is not None:
        full_env["ARGTRACE_TEST_PORT_FILE"] = str(port_file)
    full_env.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args],
        env=full_env,
        cwd=cwd,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while port_file is not None and not port_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait(timeout=5)
