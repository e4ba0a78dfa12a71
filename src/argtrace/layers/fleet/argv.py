"""A server's argv (a process on a node, a pod's container) as the settings it gives: parsed by the
framework's own parser of the release it runs (the bundled schema), named by configuration field, with the
parser's defaults for what the argv does not give (as ``check`` hands the multi-node rules their nodes)."""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def release_schema(framework: str, version: str | None, image: str | None) -> tuple[Any, str | None]:
    """The bundled schema for the release a replica runs (its version, else its image tag, else the newest
    bundled one) and the version named by the evidence (``None`` when nothing names one)."""
    from argtrace.frameworks import release as rel
    from argtrace.frameworks.schema import bundled_versions, choose_schema

    bundled = bundled_versions(framework)
    tag = (image or "").split("@", 1)[0].rpartition("/")[2].partition(":")[2]
    # ``latest`` or no tag names no release (argtrace analyses it as the newest bundled one, a guess): the
    # digest the kubelet pulled is the fact there.
    named = version or (
        rel.release_from_image(framework, image, bundled) if tag not in ("", "latest") else None
    )
    requested = named or bundled[-1]
    schema, _, _ = choose_schema(framework, requested, why="the replica's release" if named else "newest")
    return schema, named


def argv_settings(server: ServerCommand, schema: Any) -> tuple[dict[str, Any], frozenset[str]]:
    """(field -> value, the fields the argv gives). A value the shell could not know statically (a pod's
    ``$(VAR)`` from a secret) is left out: it is never compared."""
    from argtrace.layers.parser import all_defaults, parse_server_args

    result = parse_server_args(server, schema)
    renames = schema.field_names  # dest -> configuration field, as check's as_fields names them
    values: dict[str, Any] = {renames.get(dest, dest): value for dest, value in all_defaults(schema).items()}
    given: set[str] = set()
    for dest, (_, observations) in result.observations.items():
        name = renames.get(dest, dest)
        seen = [o for o in observations if o.layer == "parser"]
        if not seen:
            continue
        if seen[-1].known:
            values[name] = seen[-1].value
        else:
            values.pop(name, None)
        given.add(name)
    # ``vllm serve MODEL``: the positional becomes ``model`` (vLLM's serve command sets args.model from
    # model_tag), the field every vLLM replica is grouped by and a live server reports.
    if server.framework == "vllm" and "model_tag" in given and values.get("model_tag"):
        values["model"] = values.pop("model_tag")
        given = (given - {"model_tag"}) | {"model"}
    else:
        values.pop("model_tag", None)
    return values, frozenset(given)


def server_from_argv(at: str, argv: list[str], env: Mapping[str, str] | None) -> ServerCommand | None:
    """A plain argv (``/proc/PID/cmdline``) as a server start; ``None`` when it is not one."""
    from argtrace.frameworks.detect import detect_server
    from argtrace.model import EnvValue, Origin, Word

    detection = detect_server(list(argv))
    if detection is None:
        return None
    origin = Origin(at=at, expansion="process")
    return ServerCommand(
        at=at,
        framework=detection.framework,
        argv=tuple(Word(w, origin) for w in argv),
        env={k: EnvValue(v, origin) for k, v in (env or {}).items()},
        server_args_start=detection.server_args_start,
        entrypoint=detection.entrypoint,
        interpreter=argv[detection.command_index] if detection.interpreter is not None else None,
    )
