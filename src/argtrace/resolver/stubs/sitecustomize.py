# mypy: ignore-errors
"""argtrace resolver environments: install import stubs and, with ``ARGTRACE_FAKE_GPU`` set, a fake GPU.

Runs at interpreter start because this directory is on ``PYTHONPATH``. Does nothing heavy unless asked:
torch is imported only when ``ARGTRACE_FAKE_GPU`` is set.
"""

import os
import sys

# The fake nvidia-smi in bin/ starts with `/usr/bin/env -S python3`: this interpreter's own directory goes
# right after bin/ on PATH, so that python3 is the resolver environment's, never one earlier on the caller's
# PATH (probe of session 13: a marker-writing python3 wrapper there ran on every resolving check).
_here_bin = os.path.join(os.path.dirname(os.path.realpath(__file__)), "bin")
_env_bin = os.path.dirname(sys.executable)
_path = os.environ.get("PATH", "").split(os.pathsep)
if _path[:1] and os.path.realpath(_path[0]) == _here_bin and _env_bin and _path[1:2] != [_env_bin]:
    os.environ["PATH"] = os.pathsep.join([_path[0], _env_bin, *[p for p in _path[1:] if p != _env_bin]])

if os.environ.get("ARGTRACE_STUBS", "1") != "0":
    try:
        import _argtrace_stubs

        _argtrace_stubs.install()
    except Exception as exc:  # never break the interpreter; say why
        import sys

        print(f"argtrace stubs failed to install: {type(exc).__name__}: {exc}", file=sys.stderr)
