"""Run the REAL framework parser on a corpus of argv. Runs *inside* a resolver environment, by path:

    <env>/bin/python real_parse.py sglang|vllm < cases.json > results.json

``cases.json``: a list of {"entrypoint": ..., "argv": [...], "cwd": ...}. Output: one result per case,
{"exit": 0|1|2, "error": str|null, "namespace": {dest: value}}; values that are not JSON are rendered as
{"__obj__": type name, "attrs": {...}}. Stdlib only at module top (argtrace is not installed there).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import enum
import io
import json
import logging
import os
import sys
from typing import Any


def jsonable(value: Any, depth: int = 0) -> Any:
    if depth > 4:
        return {"__obj__": type(value).__name__}
    if isinstance(value, enum.Enum):
        return {"__enum__": value.name, "value": jsonable(value.value, depth + 1)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    attrs: dict[str, Any] = {}
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            with contextlib.suppress(Exception):
                attrs[f.name] = jsonable(getattr(value, f.name), depth + 1)
    else:
        with contextlib.suppress(Exception):
            for k, v in vars(value).items():
                if not k.startswith("_"):
                    attrs[k] = jsonable(v, depth + 1)
    return {"__obj__": type(value).__name__, "attrs": attrs}


class _Parsed(Exception):
    def __init__(self, ns: argparse.Namespace) -> None:
        super().__init__("parsed")
        self.ns = ns


def sglang_parse(entrypoint: str, argv: list[str]) -> argparse.Namespace:
    import sglang.srt.server_args as sa

    original = sa.ServerArgs.from_cli_args

    def capture(cls: Any, args: argparse.Namespace) -> Any:
        raise _Parsed(args)

    sa.ServerArgs.from_cli_args = classmethod(capture)  # type: ignore[assignment]
    try:
        if entrypoint == "sglang serve":
            import sglang.cli.serve as serve

            _, argv = serve._extract_model_type_override(argv)
            if hasattr(serve, "_normalize_positional_model_path"):
                argv, _ = serve._normalize_positional_model_path(argv)
                mp = serve.try_get_model_path(argv) if hasattr(serve, "try_get_model_path") else None
                if mp is None and "--config" not in argv and not any(h in argv for h in ("-h", "--help")):
                    serve.get_model_path(argv)
            else:
                from sglang.cli.utils import get_model_path

                get_model_path(argv)
        sa.prepare_server_args(list(argv))
    except _Parsed as p:
        return p.ns
    finally:
        sa.ServerArgs.from_cli_args = original  # type: ignore[method-assign]
    raise RuntimeError("prepare_server_args returned without parsing")


def vllm_parse(entrypoint: str, argv: list[str]) -> argparse.Namespace:
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:  # vLLM < 0.12 kept it in vllm.utils
        from vllm.utils import FlexibleArgumentParser  # type: ignore[no-redef]

    try:
        from vllm.entrypoints.common.cli_args import make_arg_parser
    except ImportError:
        from vllm.entrypoints.openai.cli_args import make_arg_parser
    if entrypoint == "vllm serve":
        # What ServeSubcommand.subparser_init does (add_parser + make_arg_parser), without importing the
        # serve module (it pulls in kernels the CPU environments of older releases lack).
        top = FlexibleArgumentParser(description="vLLM CLI")
        top.add_argument("-v", "--version", action="version", version="x")
        sub = top.add_subparsers(required=False, dest="subparser")
        make_arg_parser(sub.add_parser("serve", usage="vllm serve [model_tag] [options]"))
        ns = top.parse_args(["serve", *argv])
        for k in ("subparser", "dispatch_function"):
            if hasattr(ns, k):
                delattr(ns, k)
        return ns
    parser = make_arg_parser(FlexibleArgumentParser(description="api server"))
    return parser.parse_args(list(argv))


def main() -> int:
    framework = sys.argv[1]
    cases = json.load(sys.stdin)
    logging.disable(logging.CRITICAL)
    real_stdout = sys.stdout
    results = []
    for case in cases:
        old = os.getcwd()
        if case.get("cwd"):
            os.chdir(case["cwd"])
        buf = io.StringIO()
        result: dict[str, Any]
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
                fn = sglang_parse if framework == "sglang" else vllm_parse
                ns = fn(case["entrypoint"], list(case["argv"]))
            result = {"exit": 0, "error": None, "namespace": {k: jsonable(v) for k, v in vars(ns).items()}}
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
            lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
            result = {"exit": code, "error": lines[-1] if lines else None, "namespace": None}
        except BaseException as exc:  # the launcher stops before or outside argparse
            result = {"exit": 1, "error": f"{type(exc).__name__}: {exc}", "namespace": None}
        finally:
            os.chdir(old)
        results.append(result)
    real_stdout.write(json.dumps(results))
    real_stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
