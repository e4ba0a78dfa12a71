"""Which release a ``check`` analyses a server start with, and the findings about that choice: a named
release the evidence contradicts, an unknown release, flags and variables no bundled release knows. The
evidence is weighed in ``frameworks/release.py``; this module hands it the server and the run's options and
turns the decision into the report's ``FrameworkInfo``. Split from ``check.py``, which sequences the
layers."""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.check_options import CheckOptions
from argtrace.layers.separated import PredictedCommands
from argtrace.model import Finding, FrameworkInfo, FrameworkName, Report, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import cast

    from argtrace.frameworks.release import ReleaseDecision
    from argtrace.frameworks.release_index import ReleaseIndex
    from argtrace.frameworks.schema import Schema
else:

    def cast(_type: object, value: object) -> object:  # typing.cast at run time: the value
        return value


def _analysed_schema(report: Report) -> Schema | None:
    """The bundled schema the parser layer used for the report's release (``choose_schema``'s pick: the
    nearest older one for an unbundled release; its PR008 finding is already in the report)."""
    from argtrace.frameworks.schema import choose_schema

    name, release = report.framework.name, report.framework.release
    if name is None or release is None:
        return None
    return choose_schema(name, release)[0]


def _framework_env_names(server: ServerCommand) -> list[str]:
    """The server's own framework variables (SGLang's ``SGLANG_``/``SGL_``, vLLM's ``VLLM_``)."""
    return [k for k in server.env if k.startswith(("SGLANG_", "SGL_", "VLLM_"))]


def decide_server_release(
    framework: str, server: ServerCommand, options: CheckOptions, commands: PredictedCommands = ()
) -> tuple[Schema, FrameworkInfo, list[Finding]]:
    """The release the server runs, from the evidence (``frameworks/release.py``), the schema to analyse it
    with, and findings about the choice (a named release the evidence contradicts, an unknown release)."""
    from argtrace.frameworks import release as rel
    from argtrace.frameworks.schema import bundled_versions, choose_schema
    from argtrace.layers.observed_release import observed_release_evidence
    from argtrace.rules import process as rules

    evidence = observed_release_evidence(framework, server, options)  # --url, --pid, a run capture
    if options.log:
        from argtrace.layers.log.check import logged_release

        logged = logged_release(options.log, framework)
        if logged is not None:
            evidence.append(logged)
    from argtrace.frameworks import installed

    found = installed.installed_framework_version(framework, server=server, python=options.python)
    if found.version:
        evidence.append(
            rel.ReleaseEvidence(found.version, "installed", None, f"installed in {found.interpreter}")
        )
    bundled = bundled_versions(framework)
    from_image = rel.release_from_image(framework, server.image, bundled)
    if from_image is not None:
        evidence.append(rel.ReleaseEvidence(from_image, "image", server.at, f"image {server.image}"))
    if server.image:  # engine_release finds no Dynamo runtime tag in no image: its table stays unread
        from argtrace.frameworks.dynamo import engine_release

        pinned = engine_release(framework, server.image)  # a Dynamo runtime image: the engine its wheel pins
        if pinned is not None:
            evidence.append(rel.ReleaseEvidence(pinned[0], "image", server.at, pinned[1]))
        from argtrace.frameworks.ray_llm import engine_release as ray_engine_release

        ray_pinned = ray_engine_release(framework, server.image)  # a Ray LLM image: the vLLM Ray's extra pins
        if ray_pinned is not None:
            evidence.append(rel.ReleaseEvidence(ray_pinned[0], "image", server.at, ray_pinned[1]))
    evidence += rel.releases_from_install_lines(framework, [(argv, at) for at, argv, _ in commands])
    flags = [w.text for w in server.server_args if w.text and w.text.startswith("--")]
    if server.entrypoint == "trl vllm-serve":
        from argtrace.frameworks.trl_vllm_serve import forwarded_words

        # TRL's own options are not vLLM's words: only those it forwards narrow vLLM's releases
        flags = [w for w in forwarded_words([w.text for w in server.server_args]) if w.startswith("--")]
    from argtrace.frameworks.argv import config_flags
    from argtrace.layers.separated import separated_words

    flags += [w.text for w in separated_words(server, commands) if w.text and w.text.startswith("--")]
    if server.entrypoint != "trl vllm-serve":  # TrlParser's YAML holds TRL's fields (trl_launch.py)
        flags += config_flags(framework, server)  # a --config YAML's keys narrow the releases too
    decision = rel.decide_release(
        framework,
        options.framework_version,
        evidence,
        launch_flags=flags,
        launch_env=_framework_env_names(server),
        launch_values=rel.flag_values([w.text for w in server.server_args]),
    )
    demo = server.entrypoint == "vllm.entrypoints.api_server"  # vLLM's demo server: a parser of its own
    bench = (server.entrypoint or "").startswith("vllm bench ")  # an engine from the bench's parser
    if demo:
        from argtrace.frameworks.vllm_demo import demo_decision

        decision = demo_decision(decision, flags)
    elif bench:
        from argtrace.frameworks.vllm_bench import bench_decision

        decision = bench_decision(decision, flags, server.entrypoint or "")
    why = decision.evidence.text if decision.evidence is not None else "requested"
    if decision.source == "none":
        why = "the newest bundled release that accepts the launch"
    schema, _, findings = choose_schema(framework, decision.analysed_with, server=server, why=why)
    if demo:
        from argtrace.frameworks.vllm_demo import entrypoint_schema

        schema = entrypoint_schema(schema, server, findings)
    elif bench:
        from argtrace.frameworks import vllm_bench

        schema = vllm_bench.entrypoint_schema(schema, server, findings)
    else:
        from argtrace.frameworks.entrypoints import absent_finding

        findings += absent_finding(server, schema.version)  # `sglang serve` in a release without it
    for other in decision.conflicts:
        findings.append(
            rules.PR_RELEASE_CONFLICT.finding(
                f"--framework-version {decision.version} was given, but {other.describe()} shows "
                f"{framework} {other.version}: the analysis follows {decision.version}",
                at=other.at or server.at,
                fix=f"check which release the node runs; if it is {other.version}, pass --framework-version "
                f"{other.version}",
            )
        )
    if decision.source == "none":
        # the release index knows the `vllm serve` parsers: the demo's flags decide nothing there
        findings.append(_unknown_release_finding(framework, server, decision, () if demo else flags))
    # An unbundled release keeps its own version here while the parser uses the nearest older schema
    # (PR008 says so).
    info = FrameworkInfo(
        name=cast(FrameworkName, schema.framework),
        version=decision.version,
        source=decision.source,
        analysed_with=schema.version if decision.version is None else None,
        accepted_by=decision.accepted_by,
        evidence=decision.evidence.describe() if decision.evidence is not None else _named(decision),
    )
    return schema, info, findings


# What ``evidence`` says of a release the user named. ``source`` says ``bundled-schema``, and once the
# framework's own code ran, ``resolver-env`` or ``installed`` (the JSON contract); neither says the user
# chose it, and a reader of "resolver-env" would take the release for one argtrace found.
NAMED_RELEASE = "named with --framework-version"


def _named(decision: ReleaseDecision) -> str | None:
    return NAMED_RELEASE if decision.source == "bundled-schema" and decision.version is not None else None


def _unknown_release_finding(
    framework: str, server: ServerCommand, decision: ReleaseDecision, flags: Sequence[str]
) -> Finding:
    """PR011: nothing shows the release; which bundled releases accept the launch, and what the others
    would refuse or ignore."""
    from argtrace.frameworks.release import (
        describe_releases,
        flag_values,
        refused_flag_clauses,
        refused_value_clauses,
    )
    from argtrace.frameworks.release_index import release_index
    from argtrace.rules import process as rules

    index = release_index(framework)
    accepted = decision.accepted_by or ()
    # each name with the releases that know it (names no release knows decide nothing)
    knowing = [(f.split("=", 1)[0], index.releases_knowing_flag(f)) for f in flags]
    knowing += [(v, index.releases_knowing_env(v)) for v in _framework_env_names(server)]
    # releases that refuse the same names are one clause, as a range ("vllm 0.20.2-0.33.0 do not know X")
    by_missing: dict[tuple[str, ...], list[str]] = {}
    # each name's releases as a set, once; a name every release knows is missing from none, and a release
    # every name's releases hold misses none: only the others are asked of the names (most launches' names
    # are known to every bundled release, and asking each release of each name was most of PR011)
    every = len(index.releases)
    known_by = [(n, frozenset(releases)) for n, releases in knowing if releases and len(releases) < every]
    lacking = {r for _, releases in known_by for r in index.releases if r not in releases}
    for release in index.releases if lacking else ():
        if release not in lacking or release in accepted:
            continue
        missing = tuple(dict.fromkeys(n for n, releases in known_by if release not in releases))
        if missing:
            by_missing.setdefault(missing, []).append(release)
    refused = []
    for missing, releases in by_missing.items():
        verb = "does" if len(releases) == 1 else "do"
        span = describe_releases(releases, list(index.releases))
        refused.append(f"{framework} {span} {verb} not know {', '.join(missing)}")
    refused += refused_flag_clauses(framework, flags, accepted)
    refused += refused_value_clauses(framework, flag_values([w.text for w in server.server_args]), accepted)
    accepted_text = describe_releases(list(accepted), list(index.releases))
    from argtrace.frameworks.release import image_naming_no_release

    # an official image whose tag names no release (latest, nightly) was seen: say why it does not decide
    image = image_naming_no_release(framework, server.image)
    tagless = f"; the tag of image {image} names no release" if image else ""
    # A name no bundled release knows decides nothing, so "accepts every flag" would be false of it: the
    # message says which names it leaves out (a documentation page ahead of every release writes such a
    # flag, SGLang's `--int8-kv-cache`; so does a misspelling)
    nowhere = [n for n, releases in knowing if not releases and not _known_as_read(index, n)]
    nowhere = list(dict.fromkeys(nowhere))
    scope = " that a bundled release knows" if nowhere else ""
    message = (
        f"nothing shows which {framework} release runs (no --framework-version, log, installed package, "
        f"image tag or pip line{tagless}): analysed as {framework} {decision.analysed_with}, the newest "
        f"bundled release that accepts every flag and variable of the launch{scope} (accepted by "
        f"{accepted_text})"
    )
    if refused:
        message += "; " + "; ".join(refused)
    if nowhere:
        names = ", ".join(nowhere)
        message += f"; no bundled {framework} release knows {names} (a misspelling, or a newer release's)"
    return rules.PR_RELEASE_UNKNOWN.finding(message, at=server.at)


def _known_as_read(index: ReleaseIndex, name: str) -> bool:
    """True when some bundled release knows ``name`` as its parser reads it: vLLM's rewrites an underscore
    spelling or a dotted JSON key into a flag the index knows (frameworks/vllm.py ``option_read_as``)."""
    if index.framework != "vllm":
        return False  # (frameworks/vllm.py NAME) SGLang's parser reads a name as written
    from argtrace.frameworks.vllm import option_read_as

    read = option_read_as(name)
    return read != name and bool(index.releases_knowing_flag(read))
