"""``argtrace resolver add|list|remove|clear-cache``: the cached CPU-only framework environments the
resolution layer runs the frameworks' own code in (see docs/frameworks.md), and the cache of their answers
(``clear-cache``, resolver/cache.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "resolver"
HELP = "build, list or remove resolver environments (the frameworks' real code, CPU-only, cached)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="resolver_action", metavar="add|list|remove|clear-cache", required=True)
    add = sub.add_parser(
        "add", help="build the environment for FRAMEWORK==VERSION (e.g. sglang==0.5.10.post1)"
    )
    add.add_argument("specs", nargs="+", metavar="FRAMEWORK==VERSION")
    add.add_argument(
        "--regenerate-schema",
        action="store_true",
        help="also generate the parser schema of a bundled release into the cache (a release that is not "
        "bundled always gets one: check uses it)",
    )
    sub.add_parser("list", help="list the environments in the cache")
    remove = sub.add_parser("remove", help="delete the environment for FRAMEWORK==VERSION")
    remove.add_argument("specs", nargs="+", metavar="FRAMEWORK==VERSION")
    sub.add_parser("clear-cache", help="forget every stored resolution and sizing answer")


def _describe(m: object) -> dict[str, object]:
    from argtrace.resolver.environments import Manifest

    assert isinstance(m, Manifest)
    return {
        "kind": m.kind,
        "framework": m.framework,
        "version": m.version,
        "python": m.python,
        "created": m.created,
        "size": m.size,
        "path": m.path,
        "build_seconds": m.build_seconds,
    }


def _progress_line(line: str, update: Callable[[str], None]) -> None:
    """A build step: on a terminal the live progress line shows it; elsewhere it is printed, as before."""
    from argtrace.progress import active

    if active():
        update(line)
    else:
        print(f"  {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> Report:
    from argtrace.model import Report, UsageError
    from argtrace.resolver import environments as envs

    report = Report(command="resolver")
    action = args.resolver_action
    section: dict[str, object] = {"action": action, "cache": str(envs.cache_dir())}
    report.sections["resolver"] = section
    try:
        specs = [envs.parse_spec(s) for s in getattr(args, "specs", [])]
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if action == "clear-cache":
        from argtrace.resolver import cache_write, data_cache

        root, count = cache_write.clear()
        section["resolution_cache"] = str(root)
        section["removed"] = count
        report.notes.append(f"removed {count} stored resolution(s) from {root}")
        # the parsed copies of argtrace's own data and its compiled dataclass methods: rebuilt on the next run
        data_root, data_count = data_cache.clear()
        section["data_cache"] = str(data_root)
        section["data_removed"] = data_count
        report.notes.append(f"removed {data_count} kept data file(s) from {data_root}")
        return report
    if action == "list":
        listed = envs.list_environments()
        section["environments"] = [_describe(m) for m in listed]
        if not listed:
            report.notes.append(
                "no resolver environments; build one with: argtrace resolver add sglang==0.5.10.post1"
            )
        for m in listed:
            label = f"{m.framework}=={m.version}" if m.kind == "framework" else "base (CPU torch + triton)"
            report.notes.append(f"{label}: {m.size / 1e9:.2f} GB, python {m.python}, {m.path}")
        return report
    if action == "remove":
        removed = []
        for framework, version in specs:
            gone = envs.remove_environment(framework, version)
            removed += [str(p) for p in gone]
            report.notes.append(
                f"removed {', '.join(str(p) for p in gone)}"
                if gone
                else f"no environment for {framework}=={version}"
            )
        section["removed"] = removed
        return report
    built = []
    schemas: list[dict[str, object]] = []
    section["schemas"] = schemas
    for framework, version in specs:
        existing = envs.find_environment(framework, version)
        if existing is not None:
            report.notes.append(f"{framework}=={version} is ready: {existing.path}")
            built.append(_describe(existing))
            _ensure_schema(existing, bool(getattr(args, "regenerate_schema", False)), report, schemas)
            continue
        size = envs.expected_size(framework)
        print(
            f"argtrace resolver: building {framework}=={version} in {envs.cache_dir()} "
            f"(about {size / 1e9:.1f} GB, 1-4 minutes)",
            file=sys.stderr,
            flush=True,
        )
        from argtrace.progress import stage

        try:
            with stage(f"building {framework}=={version}") as update:
                manifest = envs.build_environment(
                    framework, version, progress=lambda line: _progress_line(line, update)
                )
        except envs.EnvironmentError_ as exc:
            raise UsageError(f"could not build {framework}=={version}: {exc}") from exc
        built.append(_describe(manifest))
        report.notes.append(
            f"built {framework}=={version}: {manifest.size / 1e9:.2f} GB in {manifest.build_seconds} s "
            f"({manifest.path})"
        )
        _ensure_schema(manifest, bool(getattr(args, "regenerate_schema", False)), report, schemas)
    section["environments"] = built
    return report


def _ensure_schema(manifest: object, force: bool, report: Report, out: list[dict[str, object]]) -> None:
    """A release without a bundled schema gets one generated from its environment, on the spot, into the
    user cache (``schema_gen.user_schema_dir``), where ``check`` finds it instead of falling back to the
    nearest older bundled release."""
    from argtrace.frameworks.schema import bundled_versions, load_schema
    from argtrace.model import UsageError
    from argtrace.resolver import schema_gen
    from argtrace.resolver.environments import Manifest

    assert isinstance(manifest, Manifest)
    framework, version = str(manifest.framework), str(manifest.version)
    if version in bundled_versions(framework, include_user=False) and not force:
        return
    print(
        f"argtrace resolver: generating the {framework}=={version} parser schema", file=sys.stderr, flush=True
    )
    try:
        schema = schema_gen.schema_in_env(manifest)
    except schema_gen.GenerationError as exc:
        raise UsageError(f"could not generate the schema of {framework}=={version}: {exc}") from exc
    path = schema_gen.write_user_schema(schema)
    load_schema.cache_clear()  # a schema of this version may have been loaded before (the fallback)
    options = schema["options"]
    env_vars = schema["env_vars"]
    assert isinstance(options, list) and isinstance(env_vars, list)
    out.append({"framework": framework, "version": version, "path": str(path), "options": len(options)})
    report.notes.append(
        f"schema of {framework}=={version}: {len(options)} options, {len(env_vars)} environment variables "
        f"({path}); check uses it"
    )
