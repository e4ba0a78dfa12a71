"""Dump the parser of vLLM's demo server, ``python -m vllm.entrypoints.api_server``, of the release unpacked
first on ``PYTHONPATH`` (after the stubs), inside another release's resolver environment. Run by
``scripts/gen_vllm_demo_server.py``, never by hand:

    <env>/bin/python scripts/dump_vllm_demo_parser.py vllm --out FILE

The demo builds its parser in its ``if __name__ == "__main__":`` block (its own ``--host``/``--port``/
``--ssl-*``... then ``AsyncEngineArgs.add_cli_args``): that block's statements are run in the module's own
namespace with ``parse_args`` stopped before anything is parsed or started, and the parser they built is
dumped by the same ``dump_parser`` the bundled schemas use. The overlay machinery (placeholders for modules
the release imports but the environment lacks) is ``argtrace/resolver/dump_overlay.py``'s.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
from typing import Any

RESOLVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "argtrace", "resolver")
MODULE = "vllm.entrypoints.api_server"


class _Built(BaseException):
    pass


def _main_block(source: str) -> tuple[list[ast.stmt], int]:
    """The statements of ``if __name__ == "__main__":`` and the line it starts on."""
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
        ):
            return list(node.body), node.lineno
    raise RuntimeError(f"{MODULE} has no __main__ block")


def demo_schema(dump_parser: Any) -> dict[str, Any]:
    import importlib

    demo = importlib.import_module(MODULE)
    source = inspect.getsource(demo)
    body, line = _main_block(source)

    def stop(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Built(self)

    parser_classes = {argparse.ArgumentParser}
    parser_classes.update(
        v for v in vars(demo).values() if isinstance(v, type) and issubclass(v, argparse.ArgumentParser)
    )
    real = {cls: cls.__dict__.get("parse_args") for cls in parser_classes}
    for cls in parser_classes:
        cls.parse_args = stop  # type: ignore[method-assign]
    namespace = dict(vars(demo))
    namespace["__name__"] = "__main__"
    built: argparse.ArgumentParser | None = None
    crash: dict[str, Any] | None = None
    try:
        exec(compile(ast.Module(body=body, type_ignores=[]), demo.__file__, "exec"), namespace)
    except _Built as done:
        built = done.args[0]
    except Exception as exc:  # the release's own block fails before parsing: every start of it fails so
        import traceback

        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == demo.__file__]
        crash = {
            "exception": f"{type(exc).__name__}: {exc}",
            "where": f"{dump_parser.rel(demo.__file__)}:{frames[-1].lineno if frames else line}",
            "line": (frames[-1].line or "").strip() if frames else "",
        }
    finally:
        for cls, fn in real.items():
            if fn is None:
                del cls.parse_args
            else:
                cls.parse_args = fn  # type: ignore[method-assign]
    entry = {
        "command": f"python -m {MODULE}",
        "argv": "sys.argv[1:]",
        "function": "the module's __main__ block (its own flags, then AsyncEngineArgs.add_cli_args)",
        "where": f"{dump_parser.rel(demo.__file__)}:{line}",
    }
    if crash is not None:
        return {"parser": {"entrypoints": [entry]}, "options": [], "positionals": [], "crash": crash}
    if built is None:
        raise RuntimeError(f"{MODULE}'s __main__ block built no parser before parse_args")
    out: dict[str, Any] = dump_parser.dump_parser(built)
    out["parser"]["entrypoints"] = [entry]
    return out


def main() -> int:
    sys.path.insert(0, os.path.abspath(RESOLVER))
    import dump_overlay  # imports dump_parser from the same directory
    import dump_parser

    dump_parser.vllm_schema = lambda: demo_schema(dump_parser)
    sys.argv = [os.path.join(RESOLVER, "dump_overlay.py"), *sys.argv[1:]]
    return int(dump_overlay.main())


if __name__ == "__main__":
    sys.exit(main())
