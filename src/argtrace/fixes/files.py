"""The files a launch reads besides the script or manifest checked, as fix sources: the env files of
``docker run --env-file`` and compose ``env_file:`` (``report.sections["transport"]``) and a framework's
``--config`` YAML. A finding whose cause is written in one of them (PR001 at ``server.env:2``, PA001 for a
key of ``cfg.yaml``) gets its edit there, at the file's real line and column; the re-check reads the
edited text through ``argtrace.overlay``.

Only this machine's files: under ``--host`` they are the node's, and a fix of them stays a text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from argtrace.fixes.edits import SourceFile
from argtrace.model import Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# As the parser layer reads a --config file (frameworks/config_files.MAX_CONFIG_FILE_BYTES) and an env file.
MAX_BYTES = 4 * 1024 * 1024


def _env_files(report: Report) -> Iterator[tuple[str, str]]:
    section = report.sections.get("transport")
    hops: list[Any] = section.get("hops", []) if isinstance(section, Mapping) else []
    for hop in hops:
        for env_file in hop.get("env_files", []) if isinstance(hop, Mapping) else []:
            path = env_file.get("path") if isinstance(env_file, Mapping) else None
            if isinstance(path, str) and env_file.get("read"):
                yield path, path  # read as written (compose paths already joined to the file's directory)


def _config_files(report: Report) -> Iterator[tuple[str, str]]:
    for server in report.servers:
        words = [w.text for w in server.argv[server.server_args_start :]]
        for index, word in enumerate(words):
            text = None
            if word == "--config" and index + 1 < len(words):
                text = words[index + 1]
            elif word is not None and word.startswith("--config="):
                text = word.split("=", 1)[1]
            if text:
                from argtrace.frameworks.config_files import resolve_path  # (a launch with --config only)

                yield text, _from_here(str(resolve_path(text, server)))


def _from_here(path: str) -> str:
    """The path as a user here names it: relative below the current directory, else absolute."""
    import os

    relative = os.path.relpath(os.path.abspath(path))
    return path if relative.startswith("..") else relative


def read_sources(report: Report, known: Mapping[str, SourceFile]) -> dict[str, SourceFile]:
    """The env and config files of the launch that are readable regular files here, by their path from
    here (``named``: how the findings name a --config file), leaving out those in ``known``."""
    from argtrace import localfs
    from argtrace.fixes.verify import decode
    from argtrace.remote.host import current_host

    if current_host().is_remote:
        return {}
    out: dict[str, SourceFile] = {}
    for named, path in [*_env_files(report), *_config_files(report)]:
        if path in known or path in out or not localfs.is_file(path):
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError:
            continue
        if len(data) <= MAX_BYTES:
            out[path] = SourceFile(path, decode(data), None if named == path else named)
    return out
