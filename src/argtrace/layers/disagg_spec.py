"""A speculative algorithm whose draft input the release's PD decode server never builds (RS080).

A decode server of PD disaggregation (``--disaggregation-mode decode``) receives each request already
prefilled, so its first decode step runs before any local forward could set up the draft state: the decode
batch's draft input comes from ``SpeculativeAlgorithm.build_disagg_draft_input`` (srt/speculative/
spec_info.py, called from srt/disaggregation/decode_schedule_batch_mixin.py), which returns None for an
algorithm it has no branch for, and ``spec_prepare_for_decode`` (srt/speculative/spec_utils.py) dereferences
``batch.spec_info`` for the DFLASH family without a None check. Such a decode server starts, then its
scheduler dies at the first transferred request: "AttributeError: 'NoneType' object has no attribute
'prepare_for_decode'" (sglang#36140 on a 0.5.16-based build; sglang PR#31513's comment on plain 0.5.16).

What each release builds and dereferences is read from its wheel (scripts/gen_sglang_disagg_spec.py,
frameworks/data/sglang_disagg_spec.json): DFLASH on 0.5.15.post1-0.5.19, DSPARK on 0.5.16; 0.5.20 builds
both. A warning: sglang#36140 and PR#28390's comment met the AttributeError, while PR#34285 saw the batch fall
back to the non-speculative relay (DFLASH never drafts, no error); either way the algorithm written does not
run. When nothing names the release, a warning if the release the analysis assumes is one of them, else a
note naming the releases read whose decode server builds none (the newest bundled release builds both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from functools import lru_cache

from argtrace.model import Evidence, Finding, LayerResult, Report
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@lru_cache(maxsize=1)
def _releases() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = bundled_json("frameworks/data/sglang_disagg_spec.json")["releases"]
    return data


def _span(releases: list[str]) -> str:
    """``0.5.15.post1-0.5.19`` for consecutive bundled releases, else the names joined."""
    from argtrace.frameworks.release_index import release_index

    order = list(release_index("sglang").releases)
    if len(releases) > 1 and all(r in order for r in releases):
        at = sorted(order.index(r) for r in releases)
        if at[-1] - at[0] == len(at) - 1:
            return f"{order[at[0]]}-{order[at[-1]]}"
    return ", ".join(releases)


def disagg_spec(report: Report) -> LayerResult:
    """RS080 for an SGLang PD decode server with a speculative algorithm its release builds no draft input
    for."""
    result = LayerResult()
    if report.framework.name != "sglang" or (report.sections.get("parser") or {}).get("exit_status"):
        return result
    if report.written_value("disaggregation_mode") != "decode":
        return result
    written = report.written_value("speculative_algorithm")
    if not isinstance(written, str):
        return result
    setting = report.setting("speculative_algorithm")
    found = judge(
        written,
        report.framework.release,
        named=report.framework.version is not None,
        at=setting.last_at if setting is not None else None,
    )
    if found is not None:
        result.findings.append(found)
    return result


def other_decode_servers(
    servers: Sequence[tuple[int, str | None, str | None, Mapping[str, Any], AbstractSet[str]]], *, named: bool
) -> list[Finding]:
    """RS080 for the other SGLang servers a script starts (the described one has :func:`disagg_spec`): each
    as (index, where, release that parsed it, values by field, the fields its argv gives)."""
    out = []
    for index, at, release, values, given in servers:
        if "disaggregation_mode" not in given or values.get("disaggregation_mode") != "decode":
            continue
        written = values.get("speculative_algorithm")
        if "speculative_algorithm" not in given or not isinstance(written, str):
            continue
        found = judge(written, release, named=named, at=at)
        if found is not None:
            out.append(replace(found, server=index))
    return out


def judge(written: str, release: str | None, *, named: bool, at: str | None) -> Finding | None:
    """RS080 for a decode server of ``release`` (named by the launch, or assumed) running ``written``."""
    algorithm = written.upper()
    table = _releases()
    failing = [r for r, facts in table.items() if algorithm in facts.get("unbuilt", ())]
    if not failing:
        return None
    from argtrace.frameworks.release_index import release_index

    order = list(release_index("sglang").releases)
    failing.sort(key=lambda r: order.index(r) if r in order else len(order))
    from argtrace.rules.start_values import RS080

    facts = table.get(release or "")
    parsed = Evidence("parser", at, f"disaggregation_mode=decode, speculative_algorithm={written}")
    if facts is not None and algorithm in facts.get("unbuilt", ()):
        # the release named, or the one the analysis assumes (the newest that accepts the launch's flags)
        assumed = "" if named else " (assumed: nothing names the release; the newest that takes these flags)"
        return RS080.finding(
            f"sglang {release}'s decode server builds no draft input for {algorithm}: with "
            "--disaggregation-mode decode each transferred request's draft input comes from "
            f"build_disagg_draft_input, which builds one for {', '.join(facts['built'])} only and "
            f"returns None for {algorithm} (sglang/{facts['builder_at']}); the decode step then "
            "dereferences it "
            f"(sglang/{facts['dereferenced_at']}: \"AttributeError: 'NoneType' object has no attribute "
            "'prepare_for_decode'\", the scheduler dies) or, where the batch falls back to the "
            f"non-speculative relay, {algorithm} never drafts{assumed}",
            at=at,
            evidence=[
                parsed,
                Evidence(
                    "resolution",
                    f"sglang {release}: {facts['builder_at']}, {facts['called_at']}, "
                    f"{facts['dereferenced_at']}",
                    f"build_disagg_draft_input has no {algorithm} branch; spec_prepare_for_decode reads "
                    "batch.spec_info unguarded",
                ),
            ],
            setting="speculative_algorithm",
            fix=_fix(algorithm, table, order),
            severity=None if named else "warning",
            basis=None if named else "assumed",
        )
    if named:
        return None  # the release named builds it, or its wheel was not read
    return RS080.finding(
        f"if this runs sglang {_span(failing)}, {_their(failing)} decode server builds no draft input "
        f"for {algorithm} (build_disagg_draft_input returns None): its decode step fails "
        "(\"AttributeError: 'NoneType' object has no attribute 'prepare_for_decode'\") or never "
        f"drafts; sglang {release}, which the analysis assumes, builds one",
        at=at,
        evidence=[parsed],
        setting="speculative_algorithm",
        fix=_fix(algorithm, table, order),
        severity="info",
        basis="assumed",
    )


def _their(releases: list[str]) -> str:
    return "that release's" if len(releases) == 1 else "those releases'"


def _fix(algorithm: str, table: dict[str, dict[str, Any]], order: list[str]) -> str:
    builds = [r for r, facts in table.items() if algorithm in facts.get("built", ())]
    builds.sort(key=lambda r: order.index(r) if r in order else len(order))
    first = (
        f"sglang {builds[0]} or newer, which builds its draft input" if builds else "a release that builds it"
    )
    return f"run {first}, or drop --speculative-algorithm {algorithm} from the prefill and decode servers"
