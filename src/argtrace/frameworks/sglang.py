"""SGLang: what happens to argv before ``argparse`` and the converters its parser uses.

The real code (``sglang/srt/server_args.py: prepare_server_args`` and ``sglang/cli/serve.py``):

* ``sglang serve`` removes ``--model-type X`` / ``--model-type=X`` before anything else;
* ``sglang serve MODEL`` becomes ``--model-path MODEL`` when the schema lists the ``serve_positional_model``
  rewrite (0.5.23); older releases stop with "--model-path is required" unless ``--model-path`` is spelled
  out literally (no abbreviation, no ``--model``);
* ``--config FILE.yaml`` (only that exact word, never ``--config=FILE``) is replaced by the YAML's keys,
  put *before* the rest of argv so the command line wins (``ConfigArgumentMerger``, schema rewrite
  ``config_yaml``).

No flag data lives here: the schema says which rewrites apply and which options exist. The rewrites
themselves are ``sglang_rewrites.py`` and the ``type=`` converters ``sglang_converters.py``, read when a
launch needs them (most launches are ``python -m sglang.launch_server`` without ``--config``).
"""

from __future__ import annotations

import re

from argtrace.frameworks.argv import PreparedArgv, server_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from argtrace.frameworks.argv import ArgToken
    from argtrace.frameworks.schema import Schema
    from argtrace.model import ServerCommand

NAME = "sglang"
SERVE = "sglang serve"


def prepare_argv(server: ServerCommand, schema: Schema) -> PreparedArgv:
    tokens = server_tokens(server)
    out = PreparedArgv(tokens)
    if server.entrypoint == "sglang_router.launch_server":
        from argtrace.frameworks.sglang_rewrites import _without_router_flags

        tokens = _without_router_flags(tokens, out, server.at, server)
    if server.entrypoint == "dynamo.sglang":
        from argtrace.frameworks.dynamo import without_dynamo_options

        tokens = out.tokens = without_dynamo_options(tokens, out, server.entrypoint, server.at, server.image)
    if server.entrypoint == SERVE:
        from argtrace.frameworks.sglang_rewrites import serve_argv

        tokens = serve_argv(tokens, server, schema, out)
    if (
        out.fatal is None
        and schema.has_rewrite("config_yaml", "config", "config_file")
        and any(t.text == "--config" for t in tokens)
    ):
        from argtrace.frameworks.sglang_rewrites import _merge_config

        tokens = _merge_config(tokens, server, schema, out)
    out.tokens = tokens
    return out


def post_parse(tokens: list[ArgToken], namespace: dict[str, Any], schema: Schema) -> None:
    """What ``prepare_server_args`` adds to the parsed namespace (``explicit_flag_probe``: 0.5.23 records
    whether ``--radix-eviction-policy`` appeared in argv after the config merge)."""
    probe = schema.rewrite("explicit_flag_probe")
    if probe is None:
        return
    for flag in re.findall(r"`(--[a-z0-9][a-z0-9-]*)`", str(probe.get("description") or "")):
        attr = "_" + flag[2:].replace("-", "_") + "_explicitly_set"
        namespace[attr] = any(t.text == flag or (t.text or "").startswith(flag + "=") for t in tokens)


def converter(type_name: str) -> Callable[[str], Any] | None:
    """The Python equivalent of one of SGLang's ``type=`` converters, by (qualified) name."""
    short = type_name.rsplit(".", 1)[-1]
    if type_name.startswith("sglang.") or "." not in type_name:
        from argtrace.frameworks.sglang_converters import CONVERTERS

        return CONVERTERS.get(short)
    return None
