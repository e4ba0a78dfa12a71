"""Which framework release a launch runs, decided from the evidence, and how it was decided.

The order, strongest first: the release the user names (``--framework-version``); what actually ran (a
``--log``'s version line, ``/server_info``, a ``run`` capture); what is installed for the server's
interpreter (``frameworks/installed.py``, read from its site-packages); the container image's tag
(``lmsysorg/sglang:v0.5.10.post1``, ``vllm/vllm-openai:v0.11.0``; ``latest``, no tag or ``nightly`` name no
release: they are no evidence, and PR011 says the tag was seen); a ``pip install sglang==X`` / ``uv pip
install`` line in the script. A requested release that the evidence contradicts is a warning. The source
that decided the release stays the reported source after the framework's own resolution ran
(:func:`source_after_resolution`). With no evidence at all, the version is unknown: the analysis uses the
newest bundled release whose parser accepts every flag and variable of the launch (``accepted_by``, read
from the generated flag -> releases index, ``release_index.py``), and findings that hold only on some
releases say so instead of pretending to know which one runs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.model import FrameworkSource

# Official image repositories per framework (registry prefixes such as docker.io/ are ignored).
_IMAGES = {
    "sglang": ("lmsysorg/sglang",),
    "vllm": ("vllm/vllm-openai", "vllm/vllm-openai-rocm", "vllm/vllm-tpu", "rocm/vllm"),
}
# A release at the start of a tag: v0.5.10.post1, 0.11.0, v0.4.6.post5-cu124-srt, v0.5.2rc2-cu126, and vLLM's
# four-part patches v0.9.0.1, v0.10.1.1 (PEP 440's release segment has any number of parts: a tag of three
# was read as no release, fa38's OME runtime on vllm-openai:v0.9.0.1).
_TAG_RELEASE = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:$|[-_+])")
# ``sglang==0.5.10.post1``, ``"sglang[all]==0.4.6.post5"``, ``vllm==0.11.0`` inside a pip/uv command.
_PIN = re.compile(
    r"^['\"]?(?P<name>sglang|vllm)(?:\[[^\]]*\])?===?(?P<version>\d+\.\d+[\w.+-]*?)['\"]?$", re.IGNORECASE
)
_INSTALLERS = ("pip", "pip3", "uv")


@deferred(frozen=True)
class ReleaseEvidence:
    """One place that shows which release runs."""

    version: str
    source: FrameworkSource
    at: str | None
    text: str  # what was read there, as the report shows it

    def describe(self) -> str:
        where = f" at {self.at}" if self.at else ""
        return f"{self.text}{where}"


def release_from_image(framework: str, image: str | None, bundled: Sequence[str] = ()) -> str | None:
    """The release an official image tag names; other tags (``latest``, no tag, ``nightly``, a digest) and
    unofficial images tell nothing. ``latest`` is whatever was pushed last when the node pulled it, not
    the newest release argtrace bundles, so it is no evidence (``bundled`` is kept for callers)."""
    del bundled
    tag = _official_tag(framework, image)
    if not tag:
        return None
    match = _TAG_RELEASE.match(tag)
    return match.group("version") if match else None


def image_naming_no_release(framework: str, image: str | None) -> str | None:
    """``image`` when it is the framework's official image but its tag names no release (``latest``, no
    tag, ``nightly``): the unknown-release finding says the image was seen and why it does not decide."""
    tag = _official_tag(framework, image)
    if tag is None or (tag and _TAG_RELEASE.match(tag)):
        return None
    return image


def hub_repository(name: str) -> str:
    """The Docker Hub repository an image name (without its tag or digest) refers to: ``docker.io/``,
    ``index.docker.io/`` and ``library/`` dropped, and a mirror that keeps the Hub's path after its own
    (``swr.cn-north-4.myhuaweicloud.com/ddn-k8s/docker.io/vllm/vllm-openai``, ``m.daocloud.io/docker.io/
    lmsysorg/sglang``) read as the repository it copies."""
    if "/docker.io/" in name:
        name = name.rsplit("/docker.io/", 1)[1]
    for prefix in ("docker.io/", "index.docker.io/", "library/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name


def _official_tag(framework: str, image: str | None) -> str | None:
    """The tag of an official image of ``framework`` (``""`` for none), ``None`` for any other image."""
    if not image:
        return None
    name = image.split("@", 1)[0]
    repository, _, tag = name.rpartition(":")
    if "/" in tag or not repository:  # "host:5000/repo" without a tag
        repository, tag = name, ""
    parts = hub_repository(repository).split("/")
    if len(parts) > 2 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # a registry host: docker.io/lmsysorg/sglang
    if "/".join(parts).lower() not in _IMAGES.get(framework, ()):
        return None
    return tag


def releases_from_install_lines(
    framework: str, commands: Iterable[tuple[Sequence[str | None], str | None]]
) -> list[ReleaseEvidence]:
    """``pip install ... sglang==X`` (also ``pip3``, ``python -m pip``, ``uv pip install``) in the script's
    predicted commands, each as (argv words, where)."""
    found: list[ReleaseEvidence] = []
    for argv, at in commands:
        pinned = _runner_pin(framework, argv, at) if argv and argv[0] in _TOOL_RUNNERS else []
        if pinned:
            found += pinned
            continue
        if "install" not in argv:  # what _is_install needs: most of a script's commands end here, in C
            continue
        words = [w for w in argv if w is not None]
        if not _is_install(words):
            continue
        for word in words:
            match = _PIN.match(word)
            if match and match.group("name").lower() == framework:
                found.append(ReleaseEvidence(match.group("version"), "pip-line", at, f"`{word}` installed"))
    return found


# uvx's ``COMMAND@VERSION`` (``vllm@0.11.0``; ``@latest`` names no release)
_AT_VERSION = re.compile(r"^(?P<name>sglang|vllm)@(?P<version>\d+\.\d+[\w.+-]*)$", re.IGNORECASE)
# programs that install a package into an environment of their own and run its command there
_TOOL_RUNNERS = frozenset({"uvx", "uv", "pipx"})


def _runner_pin(framework: str, argv: Sequence[str | None], at: str | None) -> list[ReleaseEvidence]:
    """``uvx --from vllm==X vllm serve``, ``uv tool run --from ...``, ``pipx run --spec sglang==X ...``: the
    release the runner installs for the command (its ``--from``/``--spec``, read as the runner's parser reads
    its options: frameworks/wrappers.py)."""
    from argtrace.frameworks.wrappers import env_runner

    words = [w for w in argv if w is not None]
    if len(words) != len(argv):
        return []
    runner = env_runner(words, 0)
    if runner is None:
        return []
    at_version = _AT_VERSION.match(words[runner.command]) if runner.label.startswith(("uvx", "uv ")) else None
    if at_version and at_version.group("name").lower() == framework:
        pin = words[runner.command]
        return [ReleaseEvidence(at_version.group("version"), "pip-line", at, f"`{pin}` installed")]
    for option in (" --from ", " --spec "):
        if option in runner.label:
            pin = runner.label.split(option, 1)[1].split(" ", 1)[0]
            match = _PIN.match(pin)
            if match and match.group("name").lower() == framework:
                return [ReleaseEvidence(match.group("version"), "pip-line", at, f"`{pin}` installed")]
    return []


def _is_install(words: Sequence[str]) -> bool:
    programs = [w.rsplit("/", 1)[-1] for w in words[:4]]
    for i, program in enumerate(programs):
        if program in _INSTALLERS or (program.startswith("python") and words[i + 1 : i + 3] == ["-m", "pip"]):
            rest = words[i + 1 :]
            return "install" in rest[:4]
    return False


@functools.lru_cache(maxsize=8)
def _positions(bundled: tuple[str, ...]) -> dict[str, int]:
    """Each release's place in ``bundled`` (a framework's bundled releases: PR011 describes nine spans of
    them in one check). Callers only read it."""
    return {v: i for i, v in enumerate(bundled)}


def describe_releases(versions: Sequence[str], bundled: Sequence[str]) -> str:
    """``0.5.10.post1-0.5.19`` for a run of three or more consecutive bundled releases, runs joined by commas
    (``0.4.0.post2-0.5.6.post2, 0.5.20-0.5.23``); a release outside ``bundled`` or a shorter run as itself."""
    if not versions:
        return "none of the bundled releases"
    position = _positions(tuple(bundled))
    runs: list[list[str]] = []
    for version in versions:
        here = position.get(version)
        last = runs[-1][-1] if runs else None
        if here is not None and last is not None and position.get(last) == here - 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    parts: list[str] = []
    for run in runs:
        parts += [f"{run[0]}-{run[-1]}"] if len(run) > 2 else run
    return ", ".join(parts)


@dataclass(frozen=True)
class ReleaseDecision:
    """The release a launch is analysed as, and how it was decided (``model.FrameworkInfo``'s fields)."""

    version: str | None  # None: no evidence
    source: FrameworkSource
    analysed_with: str
    accepted_by: tuple[str, ...] | None = None
    evidence: ReleaseEvidence | None = None
    conflicts: tuple[ReleaseEvidence, ...] = ()


def flag_values(words: Sequence[str | None]) -> list[tuple[str, str]]:
    """Each ``(--flag, value)`` a launch writes (``--flag value`` or ``--flag=value``), for the releases
    whose choices refuse the value (``ReleaseIndex.refusing_value``). A word after a flag that starts with
    ``-`` is another option, never that flag's value; an unknown word (``None``) is none."""
    out = []
    for i, word in enumerate(words):
        if not word or not word.startswith("--"):
            continue
        if "=" in word:
            flag, value = word.split("=", 1)
            out.append((flag, value))
        elif i + 1 < len(words):
            value_word = words[i + 1]
            if value_word and not value_word.startswith("-"):
                out.append((word, value_word))
    return out


def refused_flag_clauses(framework: str, flags: Iterable[str], accepted: Sequence[str]) -> list[str]:
    """PR011's clause for the releases that register a flag of the launch but whose action refuses it
    (SGLang 0.5.3.post3's DeprecatedAction raises ValueError for ``--enable-ep-moe``; a retired flag's
    ``error_message``): ``sglang 0.5.3.post3 refuses --enable-ep-moe, --enable-deepep-moe (its action stops
    the launch)``, releases that refuse the same names in one clause, as for flags they do not know."""
    from argtrace.frameworks.release_index import release_index

    index = release_index(framework)
    by_names: dict[tuple[str, ...], list[str]] = {}
    names = list(dict.fromkeys(f.split("=", 1)[0] for f in flags))
    refusing = {name: index.releases_refusing_flag(name) for name in names}
    # a release no name's action refuses has no clause: only those that some refuses are asked of the names
    refusers = set().union(*refusing.values())
    for release in index.releases if refusers else ():
        if release not in refusers or release in accepted:
            continue
        refused = tuple(n for n in names if release in refusing[n])
        if refused:
            by_names.setdefault(refused, []).append(release)
    out = []
    for refused, releases in by_names.items():
        verb = "refuses" if len(releases) == 1 else "refuse"
        span = describe_releases(releases, list(index.releases))
        out.append(f"{framework} {span} {verb} {', '.join(refused)} (its action stops the launch)")
    return out


def refused_value_clauses(
    framework: str, values: Iterable[tuple[str, str]], accepted: Sequence[str]
) -> list[str]:
    """PR011's clauses for the values some bundled releases' choices refuse: ``sglang 0.5.1.post3-0.5.11
    refuse --moe-runner-backend marlin (not one of its choices)``. A value every release knowing the flag
    refuses decides nothing (the parser layer reports it); so does one only releases outside ``accepted``
    take (a script mixing eras: the parser layer's PA009 names where it is valid)."""
    from argtrace.frameworks.release_index import release_index

    index = release_index(framework)
    out = []
    for flag, value in dict.fromkeys(values):
        refusing = index.refusing_value(flag, value)
        if not refusing or set(refusing) == {index.releases[i] for i in index.flags.get(flag, ())}:
            continue
        if any(r in refusing for r in accepted):
            continue
        span = describe_releases(list(refusing), list(index.releases))
        verb = "refuses" if len(refusing) == 1 else "refuse"
        out.append(f"{framework} {span} {verb} {flag} {value} (not one of its choices)")
    for flag, value in dict.fromkeys(values):
        switch = index.taking_no_value(flag)
        if not switch or set(switch) == {index.releases[i] for i in index.flags.get(flag, ())}:
            continue  # a switch in every release that knows it: the parser layer's PA022 says so
        if any(r in switch for r in accepted):
            continue
        span = describe_releases(list(switch), list(index.releases))
        verb = "takes" if len(switch) == 1 else "take"
        out.append(
            f"{framework} {span} {verb} {flag} as a switch, so {value} is left over (argparse exits 2)"
        )
    return out


def decide_release(
    framework: str,
    requested: str | None,
    evidence: Sequence[ReleaseEvidence],
    *,
    launch_flags: Iterable[str] = (),
    launch_env: Iterable[str] = (),
    launch_values: Iterable[tuple[str, str]] = (),
) -> ReleaseDecision:
    """The release from the strongest evidence (``evidence`` in the module's order: observed, installed,
    image, pip line); ``requested`` wins over all of it, and evidence naming another release is kept as a
    conflict. With neither, the newest bundled release that accepts the launch."""
    from argtrace.frameworks.release_index import release_index

    index = release_index(framework)
    if requested:
        # a local build label (PEP 440 ``+gfx906``, ``+cu126``) names a build of the same release
        conflicts = tuple(e for e in evidence if _public(e.version) != _public(requested))
        return ReleaseDecision(requested, "bundled-schema", requested, conflicts=conflicts)
    if evidence:
        strongest = min(evidence, key=lambda e: _ORDER.index(e.source))
        return ReleaseDecision(strongest.version, strongest.source, strongest.version, evidence=strongest)
    accepted = index.accepting(launch_flags, launch_env, launch_values)
    analysed = accepted[-1] if accepted else index.releases[-1]
    return ReleaseDecision(None, "none", analysed, accepted_by=accepted)


def _public(version: str) -> str:
    """The release without a PEP 440 local label: ``0.11.0+gfx906`` is a build of 0.11.0."""
    return version.split("+", 1)[0]


# Evidence sources, strongest first.
_ORDER: tuple[FrameworkSource, ...] = ("live", "process", "run", "log", "installed", "image", "pip-line")
EVIDENCE_SOURCES: frozenset[FrameworkSource] = frozenset(_ORDER)


def source_after_resolution(
    source: FrameworkSource | None, interpreter: str, kept: Iterable[str] = ()
) -> FrameworkSource | None:
    """The release's source once the framework's own resolution ran in ``interpreter`` (its label,
    ``resolver-env sglang==X`` or ``--python P``).

    A source that says how the release was decided (every evidence source, ``none``, and ``kept``) stays:
    the resolver environment is how the release was checked, not why it was chosen. Only a release the
    user named (``bundled-schema``, the schema the name selects) becomes the code that ran for it,
    ``resolver-env`` or ``installed``, as the JSON contract has always said."""
    if source is None or source == "none" or source in EVIDENCE_SOURCES or source in set(kept):
        return source
    return "resolver-env" if interpreter.startswith("resolver-env") else "installed"
