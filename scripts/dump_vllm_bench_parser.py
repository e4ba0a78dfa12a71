"""Dump the parsers of ``vllm bench latency`` and ``vllm bench throughput`` of the release unpacked first on
``PYTHONPATH`` (after the stubs), inside another release's resolver environment. Run by
``scripts/gen_vllm_bench.py``, never by hand:

    <env>/bin/python scripts/dump_vllm_bench_parser.py vllm --out FILE

``vllm bench``'s subcommands build their parsers with ``vllm/benchmarks/<name>.py``'s ``add_cli_args``
(``vllm/entrypoints/cli/benchmark/<name>.py`` calls it on its subparser): the benchmark's own flags, then
``EngineArgs.add_cli_args`` (latency) or ``AsyncEngineArgs.add_cli_args`` (throughput), the engine's flags
that ``vllm serve`` takes too. Each is called on a ``FlexibleArgumentParser`` and dumped by the same
``dump_parser`` the bundled schemas use; the overlay machinery is ``argtrace/resolver/dump_overlay.py``'s.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any

RESOLVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "argtrace", "resolver")
SUBCOMMANDS = ("latency", "throughput")


def bench_schema(dump_parser: Any) -> dict[str, Any]:
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser  # <= 0.11

    out: dict[str, Any] = {"parser": {}, "options": [], "positionals": [], "bench": {}}
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"vllm.benchmarks.{name}")
        add = module.add_cli_args
        parser = FlexibleArgumentParser(prog=f"vllm bench {name}")
        parser = add(parser) or parser
        dumped: dict[str, Any] = dump_parser.dump_parser(parser)
        line = inspect.getsourcelines(add)[1]
        dumped["parser"]["entrypoints"] = [
            {
                "command": f"vllm bench {name}",
                "argv": "sys.argv[3:]",
                "function": f"vllm.benchmarks.{name}.add_cli_args",
                "where": f"{dump_parser.rel(inspect.getsourcefile(add) or '')}:{line}",
            }
        ]
        out["bench"][name] = dumped
    return out


def main() -> int:
    sys.path.insert(0, os.path.abspath(RESOLVER))
    import dump_overlay  # imports dump_parser from the same directory
    import dump_parser

    dump_parser.vllm_schema = lambda: bench_schema(dump_parser)
    sys.argv = [os.path.join(RESOLVER, "dump_overlay.py"), *sys.argv[1:]]
    return int(dump_overlay.main())


if __name__ == "__main__":
    sys.exit(main())
