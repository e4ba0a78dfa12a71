"""The ``argtrace run`` probe: a directory that intercepts a launch's server start.

Layout of the directory ``collector.run_probe`` builds from :func:`probe_files` (a fresh private temporary
directory per run, on the machine that runs the launch: this one, or the ``--host`` node)::

    site/sitecustomize.py    the probe (first on PYTHONPATH)
    bin/<name>               the shim under every intercepted name (first on PATH)
    argtrace-shim            shim.py under that machine's Python (``#!PYTHON -I``)
    bash_env.sh              BASH_ENV: a ``kill`` function (a builtin cannot be shimmed on PATH)
    output.log               the launch's stdout and stderr
    captures/*.json          one JSON per intercepted server start (written by the probe or a shim)
    stubs.jsonl              one line per recorded stub call or missing command

The environment a launch runs with is the caller's (with ``--host``: the node's ssh session's; or
``--clean-env``) plus the variables of ``collector.probe_environment``; :func:`launch_environment` removes
them again from a captured environment, so a capture shows what the real launch would have had.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

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


def probe_files() -> dict[str, str]:
    """The probe's files, as text: sent to ``collector.run_probe`` (in-process locally, over ssh with
    ``--host``), which writes them into the probe directory on the machine that runs the launch."""
    here = Path(__file__).parent
    return {
        "sitecustomize.py": (here / "sitecustomize.py").read_text(),
        "shim.py": (here / "shim.py").read_text(),
        "bash_env.sh": BASH_ENV,
    }


def shim_names() -> list[str]:
    """Every name the shim is installed under in ``bin/``."""
    return [*PASS_THROUGH, *STUB_NAMES]


def launch_environment(captured: Mapping[str, str], root: str) -> dict[str, str]:
    """A captured environment without the probe's own variables and path entries (``root``: the probe
    directory, on the machine that ran the launch)."""
    env = {k: v for k, v in captured.items() if k not in MARKERS}
    orig_bash_env = captured.get("ARGTRACE_ORIG_BASH_ENV")
    if captured.get("BASH_ENV") == posixpath.join(root, "bash_env.sh"):
        if orig_bash_env is not None:
            env["BASH_ENV"] = orig_bash_env
        else:
            env.pop("BASH_ENV", None)
    for name, entry in (("PATH", posixpath.join(root, "bin")), ("PYTHONPATH", posixpath.join(root, "site"))):
        if name not in env:
            continue
        parts = env[name].split(":")
        kept = [p for p in parts if p != entry]
        if kept != parts:
            if kept or name == "PATH":
                env[name] = ":".join(kept)
            else:
                env.pop(name)
    return env
