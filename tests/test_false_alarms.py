"""The false-alarm gate: correct, documented launches checked with no options raise no error or warning.

Every case under ``tests/data/false_alarms/`` is our own reconstruction of a launch documented in a public
source (the frameworks' docs, example scripts, compose files, Kubernetes manifests), not a copy of it: it
keeps what the verdict depends on (the server command with its flags and values, the environment and how
it is set, the image, the shell or manifest constructs argtrace analyses) and replaces the rest with
minimal code of ours, and its header names the source, the commit and what was kept. They are launches
their authors documented as working, so any error or warning
argtrace raises on them with no options at all (no ``--framework-version``, no ``--gpu``, no
``--model-config``) is a false alarm: a new user's first impression.

- ``commands/*.cmd``: one command line (after the ``#`` header) run as ``check -c COMMAND``.
- ``recipes/*.cmd``: the same, from the official recipes and model pages (2026-12-02 sweep); each header also
  names the release the recipe was written for (``# release: FRAMEWORK VERSION (how it was dated)``) and the
  true findings at that release (``# at that release (true finding): CODE SEVERITY: why``), and
  :func:`test_a_recipe_at_its_own_release_raises_only_its_true_findings` checks it with
  ``--framework-version``.
- ``scripts/*.sh``, ``compose/*.yaml``, ``k8s/*.yaml``, ``systemd/*.service`` (unit files),
  ``skypilot/*.yaml`` (SkyPilot tasks), ``make/*.mk`` (Makefiles): run as ``check FILE``.

A case that fails today is listed in :data:`KNOWN_FALSE_ALARMS` with the finding code and its mechanism;
the xfail is strict, so the day a fix makes it pass the gate turns red until the entry is removed.
Found a new false alarm? Add a reconstruction of the input here with its source, and an entry if it cannot
be fixed at once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

CORPUS = Path(__file__).resolve().parent / "data" / "false_alarms"
KINDS = {
    "commands": ".cmd",
    "scripts": ".sh",
    "compose": ".yaml",
    "k8s": ".yaml",
    "recipes": ".cmd",
    "systemd": ".service",
    "skypilot": ".yaml",
    "make": ".mk",
}

# case (path under CORPUS) -> "<CODE>: <mechanism>". Each reason names what argtrace assumed or
# ignored; docs/false_alarms.md gives the file:line that decides and the fix that would clear it.
# The release-assumption false alarms (PA008, PA003, PA026, PR001 judged by the newest bundled release when
# none was named; an image tag ignored) are gone since the release comes from the evidence or is unknown
# (issue 11): they were commands/sglang_spec_*.cmd, k8s/prodstack_gateway_gpu_deployment.yaml,
# scripts/vllm_run_deepseek_multinode.sh and scripts/vllm_elastic_ep_serve_deepseek_v2.sh. The two
# LeaderWorkerSet manifests are clean since the LWS_* variables its controller sets count as set, and a
# $(VAR) the kubelet expands from a cluster-set variable is a word of unknown value, not literal text; the
# distributed StatefulSet since a valueFrom variable is set (value unknown) for its `bash -c` script.
# The last three are gone too: the SGLang CI script's SH023 (a `return` on one fork of an unknown `if`
# made the function fail "for certain"), the embedding script's PR001 (its own VLLM_ENABLE_CHUNKED_PROCESSING
# is no near-miss of a vLLM name) and the disaggregated-prefill script's PR003 (VLLM_HOST_IP in proxy_ip is
# the same node address); tests/test_false_alarm_variants.py keeps a broken variant of each that still fires.
# ReCall#24's --disable-overlap (fifth batch) was a PA007 warning with no release named, as 0.4.8.post1 makes
# the prefix ambiguous; a note since (test_real_cases_5.py: test_a_prefix_ambiguous_in_one_release).
KNOWN_FALSE_ALARMS: dict[str, str] = {}

# Cases that take far longer than the rest (seconds of CPU each); marked slow so `-m "not slow"` skips
# them. The reason says why, so the cost is visible where it is paid.
# (the SGLang CI disaggregation script was one, about 40 s of CPU in its `while true` wait; it now takes
# under a second, measured 2026-12-01, so no case is slow today)
SLOW: dict[str, str] = {}


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def case_paths() -> list[Path]:
    return sorted(p for kind, ext in KINDS.items() for p in (CORPUS / kind).glob(f"*{ext}"))


def case_id(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def command_of(path: Path) -> str:
    """The command stored in a ``.cmd`` file: everything after its leading ``#`` header lines."""
    lines = path.read_text().splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def params() -> list[Any]:
    out = []
    for path in case_paths():
        name = case_id(path)
        reason = KNOWN_FALSE_ALARMS.get(name)
        marks: list[Any] = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        if name in SLOW:
            marks.append(pytest.mark.slow)
        out.append(pytest.param(path, id=name, marks=marks))
    return out


def alarms(path: Path, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The error and warning findings of ``argtrace check`` on one case, with no options but ``extra``."""
    if path.suffix == ".cmd":
        argv = ["check", "--format", "json", *extra, "-c", command_of(path)]
    else:
        argv = ["check", "--format", "json", *extra, str(path)]
    result = run_cli(argv, cwd=path.parent)
    # A usage error or crash prints no JSON; that is a false alarm too, so show its stderr.
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report = result.json
    # A case where no server start is found passes vacuously (nothing was checked): that is a broken case.
    assert report["servers"], f"no server start found: {[f['message'] for f in report['findings']]}"
    # a consequence folded into a milder cause (argtrace/causes.py) is an alarm as much as its cause
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["severity"] in ("error", "warning")]


@pytest.mark.parametrize("path", params())
def test_a_documented_launch_raises_no_error_or_warning(path: Path) -> None:
    found = alarms(path)
    assert found == [], "\n".join(f"{f['severity']} {f['code']}: {f['message']}" for f in found)


def test_the_corpus_has_every_kind_and_at_least_forty_cases() -> None:
    counts = {kind: len(list((CORPUS / kind).glob(f"*{ext}"))) for kind, ext in KINDS.items()}
    assert sum(counts.values()) >= 40, counts
    # Official compose files are scarce (SGLang's docker/compose.yaml is the only one found so far), and so
    # are official systemd units (vLLM's docs/deployment/systemd.md is the only one found, 2026-12-03).
    assert all(counts[kind] >= (1 if kind == "systemd" else 2) for kind in KINDS), counts


# The corpus holds reconstructions, never copies: the header says so and names the source it follows.
SOURCE = re.compile(
    r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.MULTILINE
)


@pytest.mark.parametrize("path", case_paths(), ids=case_id)
def test_every_case_is_a_reconstruction_naming_its_source_and_when_it_was_seen(path: Path) -> None:
    header = "\n".join(line for line in path.read_text().splitlines()[:3] if line.startswith("#"))
    assert SOURCE.search(header), (
        f"{case_id(path)}: no '# Reconstructed (not copied) after URL ..., seen YYYY-MM-DD: what it keeps'"
        " line in its header"
    )


def test_every_known_false_alarm_is_a_case() -> None:
    names = {case_id(p) for p in case_paths()}
    assert sorted((set(KNOWN_FALSE_ALARMS) | set(SLOW)) - names) == []


RELEASE = re.compile(r"^# release: (?:vllm|sglang) (\S+) \(", re.MULTILINE)
TRUE_FINDING = re.compile(r"^# at that release \(true finding\): (\w+) (error|warning): ", re.MULTILINE)


@pytest.mark.parametrize("path", sorted((CORPUS / "recipes").glob("*.cmd")), ids=case_id)
def test_a_recipe_at_its_own_release_raises_only_its_true_findings(path: Path) -> None:
    """With ``--framework-version`` set to the release the recipe was written for, the only errors and
    warnings are the ones its header records as true (the framework's own parser or variable table at that
    release refuses or ignores what the recipe wrote); any other is a false alarm."""
    text = path.read_text()
    release = RELEASE.search(text)
    assert release, f"{case_id(path)}: no '# release: FRAMEWORK VERSION (...)' header line"
    found = alarms(path, ("--framework-version", release.group(1)))
    assert sorted((f["code"], f["severity"]) for f in found) == sorted(TRUE_FINDING.findall(text)), "\n".join(
        f"{f['severity']} {f['code']}: {f['message']}" for f in found
    )


# The documentation sweep (2026-12-02): command lines from the frameworks' own documentation pages
# (vllm-project/vllm docs/, sgl-project/sglang docs/advanced_features/), each with the release its page was
# written for, its true findings at that release and with no options, and the values the reader supplies
# for the page's own `${...}` placeholders (`# the reader sets: NAME=VALUE ...`, passed as --env).
DOCS = sorted((CORPUS / "docs").glob("*.cmd"))
READER_SETS = re.compile(r"^# the reader sets: ((?:\w+=\S+ ?)+) \(", re.MULTILINE)
NO_OPTIONS_TRUE = re.compile(r"^# with no options \(true finding\): (\w+) (error|warning): ", re.MULTILINE)


def reader_env(text: str) -> tuple[str, ...]:
    """``--env NAME=VALUE`` for each value the header says the page's reader supplies."""
    found = READER_SETS.search(text)
    return tuple(word for pair in (found.group(1).split() if found else []) for word in ("--env", pair))


def test_the_docs_sweep_has_sixty_commands_about_half_from_each_framework() -> None:
    frameworks = [RELEASE.search(path.read_text()) for path in DOCS]
    names = [m.group(0).split()[2] for m in frameworks if m]
    assert len(names) == len(DOCS) >= 60
    assert 30 <= names.count("vllm") <= 42 and 30 <= names.count("sglang") <= 42, names


@pytest.mark.parametrize("path", DOCS, ids=case_id)
def test_a_documentation_command_is_a_reconstruction_naming_its_page_at_a_commit(path: Path) -> None:
    header = "\n".join(line for line in path.read_text().splitlines() if line.startswith("#"))
    assert SOURCE.search(header)
    assert re.search(r"after https://github\.com/[\w-]+/[\w-]+/blob/[0-9a-f]{40}/docs/\S+\.md ", header), (
        header
    )


@pytest.mark.parametrize("path", DOCS, ids=case_id)
def test_a_documentation_command_at_its_own_release_raises_only_its_true_findings(path: Path) -> None:
    """At the release its page was written for, the only errors and warnings are the ones its header records
    as true (that release's own parser refuses what the page wrote); any other is a false alarm."""
    text = path.read_text()
    release = RELEASE.search(text)
    assert release, f"{case_id(path)}: no '# release: FRAMEWORK VERSION (...)' header line"
    found = alarms(path, ("--framework-version", release.group(1), *reader_env(text)))
    assert sorted((f["code"], f["severity"]) for f in found) == sorted(TRUE_FINDING.findall(text)), "\n".join(
        f"{f['severity']} {f['code']}: {f['message']}" for f in found
    )


@pytest.mark.parametrize("path", DOCS, ids=case_id)
def test_a_documentation_command_with_no_options_raises_only_its_true_findings(path: Path) -> None:
    """With no release named, argtrace takes the newest bundled release that accepts the launch: a page it
    accepts is clean, and one no release accepts keeps its true finding (as a warning where it rests on
    the release assumed)."""
    text = path.read_text()
    found = alarms(path, reader_env(text))
    assert sorted((f["code"], f["severity"]) for f in found) == sorted(NO_OPTIONS_TRUE.findall(text)), (
        "\n".join(f"{f['severity']} {f['code']}: {f['message']}" for f in found)
    )


@pytest.mark.parametrize(
    ("name", "codes"),
    [
        # bash drops each unquoted empty word: `--host ${local_ip} --port 30000` gives --host the value --port
        ("sglang_pd_mooncake_dsv3_decode1.cmd", ["SH007", "SH007"]),
        ("sglang_pd_ascend_dsv3_prefill.cmd", ["SH007"]),
    ],
)
def test_a_documentation_placeholder_the_reader_leaves_unset_is_still_a_warning(
    name: str, codes: list[str]
) -> None:
    found = alarms(CORPUS / "docs" / name)
    assert [(f["code"], f["severity"]) for f in found] == [(code, "warning") for code in codes]
