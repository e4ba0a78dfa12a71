# mypy: ignore-errors
"""argtrace resolver environments: install import stubs and, with ``ARGTRACE_FAKE_GPU`` set, a fake GPU.

Runs at interpreter start because this directory is on ``PYTHONPATH``. Does nothing heavy unless asked:
torch is imported only when ``ARGTRACE_FAKE_GPU`` is set.
"""

import os

if os.environ.get("ARGTRACE_STUBS", "1") != "0":
    try:
        import _argtrace_stubs

        _argtrace_stubs.install()
    except Exception as exc:  # never break the interpreter; say why
        import sys

        print(f"argtrace stubs failed to install: {type(exc).__name__}: {exc}", file=sys.stderr)
