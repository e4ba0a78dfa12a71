"""The argv a framework's argparse parser finally gets, each word tied to the script words it came from.

Both frameworks rewrite argv before argparse sees it (vLLM: underscores, ``--config`` YAML, dotted keys,
``-O3``, ``vllm serve --model``; SGLang: ``--config`` YAML, ``sglang serve MODEL``). The adapters in
``sglang.py`` and ``vllm.py`` do those rewrites on :class:`ArgToken` lists, so that every value the parser
stores can still be traced to the script word (and its origin) that produced it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.model import Finding, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What an unknown word (``Word.text is None``) becomes for argparse: never a flag, never a valid value.
UNKNOWN_PREFIX = "\x00argtrace-unknown-"


@dataclass(frozen=True)
class ArgToken:
    """One argv string handed to argparse.

    ``src`` are indices into ``server.argv`` of the words it came from (several for merged dotted keys,
    none for a word read from a config file). ``text`` is None when the word cannot be known statically.
    """

    text: str | None
    src: tuple[int, ...] = ()
    # Where a synthesised word came from: "config" (YAML file), "dotted" (vLLM --x.y merged), "rewrite".
    via: str | None = None
    at: str | None = None  # location of a synthesised word (e.g. "cfg.yaml") when not a script word
    original: str | None = None  # the script word before a rewrite (e.g. underscores), when it differs
    # an unknown word written with a literal option in front (`--tensor-parallel-size=$(nproc)`): that
    # `--name=`, so the parser reads the word as the option with an unknown value, not as a positional
    option_prefix: str | None = None

    @property
    def known(self) -> bool:
        return self.text is not None


@deferred(frozen=True)
class DottedPart:
    """One ``--json-flag.key.sub VALUE`` contribution (vLLM), kept for per-key history."""

    flag: str  # "--compilation-config"
    keys: tuple[str, ...]  # ("pass_config", "fuse_allreduce_rms")
    value: Any
    raw: str
    src: tuple[int, ...]


@dataclass
class PreparedArgv:
    """A server's argv made ready for the framework's argument parser: the words, the findings and dotted
    options met on the way, and what the launcher does before or instead of argparse."""

    tokens: list[ArgToken]
    findings: list[Finding] = field(default_factory=list)
    dotted: list[DottedPart] = field(default_factory=list)
    # Set when the real launcher stops before argparse (e.g. a missing config file): exit status, message.
    fatal: tuple[int, str] | None = None
    notes: list[str] = field(default_factory=list)
    # What of the schema this entry point's parser does not have, as positional dests and first option
    # strings (vLLM <= 0.9: the module entry point parses make_arg_parser alone, without what `vllm serve`
    # adds to its subparser: model_tag, --config, and in 0.9 --headless and the API-server flags).
    without: tuple[str, ...] = ()
    # The launcher parses with parse_known_args (KServe's huggingfaceserver): a word no option takes is
    # dropped without an error, so the value it carries is lost but the server starts.
    known_args: bool = False


_OPTION_PREFIX = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_.-]*=")


def server_tokens(server: ServerCommand) -> list[ArgToken]:
    start = server.server_args_start
    out = []
    for i, w in enumerate(server.argv):
        if i < start:
            continue
        prefix = _OPTION_PREFIX.match(w.origin.expansion or "") if w.text is None else None
        out.append(ArgToken(w.text, (i,), option_prefix=prefix.group(0) if prefix else None))
    return out


def texts(tokens: Sequence[ArgToken]) -> list[str | None]:
    return [t.text for t in tokens]


def config_name_unknown(out: PreparedArgv, at: str | None) -> None:
    """``--config``'s value is not known statically: what the file holds goes unanalysed (no error)."""
    from argtrace.rules import parser as rules

    out.findings.append(
        rules.PA_UNKNOWN_VALUE.finding(
            "the --config file name cannot be known statically; the settings it holds are not analysed",
            at=at,
        )
    )


def read_config_file(
    path_text: str,
    server: ServerCommand,
    out: PreparedArgv,
    at: str | None,
    *,
    not_found: str,
    stops: str,
    then: Callable[[Any], Any] = lambda data: data,
) -> tuple[str, Any]:
    """The YAML of ``--config path_text`` as both launchers read it: ``("read", then(data))``;
    ``("absent", None)`` when the file is not here (an info finding: likely a path on the server, whose
    settings go unanalysed; ``stops`` says how the launcher fails if it is missing there too);
    ``("fatal", None)`` with a finding and ``out.fatal`` when the launcher stops: no such file on the
    ``--host`` node (``not_found``, the launcher's message) or the file cannot be read (``then``'s errors
    count as reading ones, as the launcher's do)."""
    from argtrace.frameworks.config_files import config_file, error_line, load_yaml_file, node_label
    from argtrace.rules import parser as rules

    path = config_file(path_text, server)  # --host: a local copy of the node's file
    if path is None and node_label() is not None:
        out.findings.append(
            rules.PA_CONFIG_FILE.finding(
                f"--config {path_text}: no such file on {node_label()}: {not_found}", at=at
            )
        )
        out.fatal = (1, not_found)
        return "fatal", None
    if path is None:
        out.findings.append(
            rules.PA_CONFIG_FILE.finding(
                f"--config {path_text}: the file is not here, so the settings it holds are not analysed "
                f"({stops} if it is missing on the server too)",
                at=at,
                severity="info",  # not readable here: likely a path on the server; not an error
            )
        )
        return "absent", None
    try:
        data = then(load_yaml_file(path))
    except Exception as exc:  # yaml errors, unreadable file
        msg = f"cannot read {path_text}: {error_line(exc)}"
        out.findings.append(rules.PA_CONFIG_FILE.finding(msg, at=at))
        out.fatal = (1, msg)
        return "fatal", None
    return "read", data


def config_flags(framework: str, server: ServerCommand) -> list[str]:
    """The ``--KEY`` words SGLang's ``--config FILE.yaml`` merges into argv (``ConfigArgumentMerger``: each
    key as written, ``--{key}``), for choosing the release a launch is analysed as: a key only some
    releases know narrows them as a flag on the command line does (sglang PR#38550's ``lora-strict-loading``
    is in 0.5.18-0.5.19 only). Only the exact word ``--config`` followed by a .yaml/.yml file read here;
    anything else (an unreadable file, not a mapping) adds nothing: the parser layer reports it."""
    if framework != "sglang":
        return []
    words = [w.text for w in server.server_args]
    if words.count("--config") != 1:
        return []
    index = words.index("--config")
    path_text = words[index + 1] if index + 1 < len(words) else None
    if not path_text or not path_text.lower().endswith((".yaml", ".yml")):
        return []
    from argtrace.frameworks.config_files import config_file, load_yaml_file

    path = config_file(path_text, server)
    if path is None:
        return []
    try:
        data = load_yaml_file(path)
    except Exception:  # the parser layer reports an unreadable file (PA018)
        return []
    return [f"--{key}" for key in data] if isinstance(data, dict) else []
