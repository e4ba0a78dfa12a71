# mypy: ignore-errors
"""argtrace run shim: one file, installed under many names in a directory put first on ``PATH``.

- ``python``, ``python3``, ``python3.N``, ``sglang``, ``vllm``, ``uv``: find the real command (the next one on
  ``PATH``), make sure the probe directory is first on ``PYTHONPATH`` (a script that sets ``PYTHONPATH``
  itself would drop it), and ``exec`` it: the probe's ``sitecustomize`` does the capture. When the call
  cannot carry the probe (``-I``, ``-E`` or ``-S``, or a console script whose ``#!`` line has them) and it
  is a
  server start, the shim records the capture itself and exits.
- ``setsid``: runs the command without a new session, so that it stays in the process group argtrace ends.
- ``kill``, ``pkill``, ``killall``, ``rm``, ``ssh``, ``scp``, ``curl``, ``wget``, ``sleep``, ``nvidia-smi``:
  recorders (unless ``ARGTRACE_STUBS=0``): the call is appended to ``stubs.jsonl`` and nothing happens.
A command that does not exist is recorded and fails with status 127, as bash would.

The ``#!`` line (argtrace's own interpreter, isolated) is written by ``argtrace run``.
"""

import json
import os
import sys
import time

NAME = os.path.basename(sys.argv[0])
SHIM_DIR = os.path.dirname(os.path.abspath(sys.argv[0]))
PROBE_DIR = os.environ.get("ARGTRACE_PROBE_DIR", os.path.dirname(SHIM_DIR))
SITE_DIR = os.path.join(PROBE_DIR, "site")
STUBS = ("kill", "pkill", "killall", "rm", "ssh", "scp", "curl", "wget", "sleep", "nvidia-smi")
MAX_LOG = 1 << 20


def _log(kind, extra=None):
    path = os.path.join(PROBE_DIR, "stubs.jsonl")
    try:
        if os.path.exists(path) and os.path.getsize(path) > MAX_LOG:
            return
        entry = {
            "kind": kind,
            "name": NAME,
            "argv": [NAME, *sys.argv[1:]],
            "time": time.time(),
            "pid": os.getpid(),
        }
        try:
            entry["cwd"] = os.getcwd()
        except OSError:
            entry["cwd"] = None
        if extra:
            entry.update(extra)
        with open(path, "a") as fh:
            fh.write(json.dumps(entry) + "\n")
    except OSError:
        pass


def _real(name):
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory:
            directory = os.curdir
        try:
            if os.path.samefile(directory, SHIM_DIR):
                continue
        except OSError:
            pass
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _env():
    env = dict(os.environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != SITE_DIR]
    env["PYTHONPATH"] = os.pathsep.join([SITE_DIR, *parts])
    return env


def _shebang(path):
    try:
        with open(path, "rb") as fh:
            first = fh.readline(512)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    return first[2:].decode("utf-8", "replace").split()


def _isolated(options):
    for w in options:
        if w.startswith(("-W", "-X", "--")) or not w.startswith("-"):
            continue
        if any(c in w[1:] for c in "IES"):
            return True
    return False


def _record_direct(argv, interpreter):
    """A server start the probe cannot reach: record it from here."""
    sys.path.insert(0, SITE_DIR)
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_argtrace_probe", os.path.join(SITE_DIR, "sitecustomize.py")
    )
    # Load the probe's helpers without running its module-level hook in this process.
    saved = os.environ.pop("ARGTRACE_PROBE_DIR", None)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is not None:
            os.environ["ARGTRACE_PROBE_DIR"] = saved
    found = module._server(argv)
    if found is None:
        return False
    module._record(PROBE_DIR, argv, found)
    path = os.path.join(PROBE_DIR, "captures")
    latest = sorted(os.listdir(path))[-1]
    full = os.path.join(path, latest)
    with open(full) as fh:
        record = json.load(fh)
    record.update(
        {
            "via": "shim",
            "executable": interpreter,
            "executable_realpath": os.path.realpath(interpreter),
            "python_version": None,
            "framework_version": None,
            "framework_location": None,
            "isolated": True,
        }
    )
    with open(full, "w") as fh:
        json.dump(record, fh)
    return True


def main():
    args = sys.argv[1:]
    if NAME in STUBS and os.environ.get("ARGTRACE_STUBS", "1") == "1":
        _log("stub")
        return 0
    if NAME == "setsid":
        while args and args[0].startswith("-"):
            args = args[1:]
        if not args:
            return 1
        _log("setsid")
        try:
            os.execvp(args[0], args)
        except OSError:
            sys.stderr.write(f"setsid: failed to execute {args[0]}\n")
            return 127
    real = _real(NAME)
    if real is None:
        _log("not-found")
        sys.stderr.write(f"{NAME}: command not found\n")
        return 127
    if NAME.startswith("python"):
        options = []
        skip = False
        for w in args:
            if skip:
                skip = False
                continue
            if not w.startswith("-") or w.startswith("-m") or w == "-c":
                break
            options.append(w)
            skip = w in ("-W", "-X")
        if _isolated(options) and _record_direct([real, *args], real):
            return 0
    elif NAME in ("sglang", "vllm"):
        words = _shebang(real)
        if words and _isolated(words[1:]) and _record_direct([words[0], real, *args], words[0]):
            return 0
    os.execve(real, [real, *args], _env())
    return 127


if __name__ == "__main__":
    sys.exit(main())
