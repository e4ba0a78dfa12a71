"""The ``argtrace run`` probe: a directory that intercepts a launch's server start.

Layout of the directory :func:`prepare` builds (a fresh temporary directory per run)::

    site/sitecustomize.py    the probe (first on PYTHONPATH)
    bin/<name>               the shim under every intercepted name (first on PATH)
    bash_env.sh              BASH_ENV: a ``kill`` function (a builtin cannot be shimmed on PATH)
    captures/*.json          one JSON per intercepted server start (written by the probe or a shim)
    stubs.jsonl              one line per recorded stub call or missing command

The environment a launch runs with is the caller's (or ``--clean-env``) plus the variables of
:func:`probe_environment`; :func:`launch_environment` removes them again from a captured environment, so a
capture shows what the real launch would have had.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STUB_NAMES = ("kill", "pkill", "killall", "rm", "ssh", "scp", "curl", "wget", "sleep", "nvidia-smi")
PASS_THROUGH = (
    "python",
    "python3",
    *(f"python3.{n}" for n in range(6, 16)),
    "sglang",
    "vllm",
    "uv",
    "setsid",
)
MARKERS = ("ARGTRACE_PROBE_DIR", "ARGTRACE_STUBS", "ARGTRACE_ORIG_BASH_ENV", "ARGTRACE_PYTHONPATH_UNSET")

BASH_ENV = """# argtrace run: BASH_ENV for the launch script. ``kill`` is a bash builtin, so a PATH shim
# cannot replace it: a function does (``command kill`` still reaches the builtin). Then the caller's
# own BASH_ENV.
if [ "${ARGTRACE_STUBS:-1}" = "1" ]; then
    kill() { "$ARGTRACE_PROBE_DIR/bin/kill" "$@"; }
fi
if [ -n "${ARGTRACE_ORIG_BASH_ENV:-}" ]; then
    . "$ARGTRACE_ORIG_BASH_ENV"
fi
"""


@dataclass(frozen=True)
class ProbeDir:
    root: Path

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def captures(self) -> Path:
        return self.root / "captures"

    @property
    def stubs_log(self) -> Path:
        return self.root / "stubs.jsonl"

    @property
    def bash_env(self) -> Path:
        return self.root / "bash_env.sh"


def prepare(root: Path) -> ProbeDir:
    """Write the probe, the shims and BASH_ENV into ``root`` (an empty directory)."""
    probe = ProbeDir(root)
    here = Path(__file__).parent
    probe.site.mkdir(parents=True, exist_ok=True)
    probe.bin.mkdir(parents=True, exist_ok=True)
    probe.captures.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(here / "sitecustomize.py", probe.site / "sitecustomize.py")
    shim = probe.root / "argtrace-shim"
    # -I: the shim itself must not import the probe (or anything the launch's PYTHONPATH holds).
    shim.write_text(f"#!{sys.executable} -I\n" + (here / "shim.py").read_text())
    shim.chmod(0o755)
    for name in (*PASS_THROUGH, *STUB_NAMES):
        (probe.bin / name).symlink_to(shim)
    probe.bash_env.write_text(BASH_ENV)
    return probe


def probe_environment(probe: ProbeDir, base: Mapping[str, str], *, stubs: bool = True) -> dict[str, str]:
    """``base`` plus what the probe needs: shims first on PATH, the probe first on PYTHONPATH, BASH_ENV."""
    env = dict(base)
    if "BASH_ENV" in env:
        env["ARGTRACE_ORIG_BASH_ENV"] = env["BASH_ENV"]
    if "PYTHONPATH" not in env:
        env["ARGTRACE_PYTHONPATH_UNSET"] = "1"
    env["BASH_ENV"] = str(probe.bash_env)
    env["ARGTRACE_PROBE_DIR"] = str(probe.root)
    env["ARGTRACE_STUBS"] = "1" if stubs else "0"
    env["PATH"] = str(probe.bin) + (os.pathsep + base["PATH"] if base.get("PATH") else "")
    env["PYTHONPATH"] = str(probe.site) + (os.pathsep + base["PYTHONPATH"] if base.get("PYTHONPATH") else "")
    return env


def launch_environment(captured: Mapping[str, str], probe: ProbeDir) -> dict[str, str]:
    """A captured environment without the probe's own variables and path entries."""
    env = {k: v for k, v in captured.items() if k not in MARKERS}
    orig_bash_env = captured.get("ARGTRACE_ORIG_BASH_ENV")
    if captured.get("BASH_ENV") == str(probe.bash_env):
        if orig_bash_env is not None:
            env["BASH_ENV"] = orig_bash_env
        else:
            env.pop("BASH_ENV", None)
    for name, entry in (("PATH", str(probe.bin)), ("PYTHONPATH", str(probe.site))):
        if name not in env:
            continue
        parts = env[name].split(os.pathsep)
        kept = [p for p in parts if p != entry]
        if kept != parts:
            if kept or name == "PATH":
                env[name] = os.pathsep.join(kept)
            else:
                env.pop(name)
    return env


def read_captures(probe: ProbeDir) -> list[dict[str, Any]]:
    out = []
    for path in sorted(probe.captures.glob("*.json")):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return out


def read_stub_calls(probe: ProbeDir) -> list[dict[str, Any]]:
    try:
        lines = probe.stubs_log.read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out
