"""The load-balancing mode a vLLM data parallel start's flags select, and what the release then refuses
(PA054).

vLLM reads the mode from the flags (``EngineArgs.create_engine_config``, vllm/engine/arg_utils.py): a start
that is not ``--headless`` and gives ``--data-parallel-start-rank`` is taken for a hybrid load-balanced
node, and with ``--data-parallel-size-local 1`` it switches to external load balancing ("data_parallel_
hybrid_lb is not eligible when data_parallel_size_local = 1, autoswitch to data_parallel_external_lb"). In
either mode every node serves its own API, and the head's handshake refuses a remote engine started with
``--headless`` ("Remote engine N must not use --headless in external or hybrid dp lb mode",
vllm/v1/engine/utils.py): the internal-LB layout of vLLM's guide (one API server on the head, ``--headless``
on the others) then fails as soon as the other nodes join. Which start rank infers the mode differs by
release: the bare value (rank 0 does not) up to some release, ``is not None`` (rank 0 too) after it
(gpustack/gpustack#6221 on 0.29.0, vllm-project/vllm-ascend#16204 on 0.28). A head written with
``--data-parallel-start-rank 0`` is the internal-LB head on the first and an external-LB rank on the second.

A ``--headless`` start given ``--api-server-count`` above the release's bound is refused by
vllm/entrypoints/cli/serve.py before any engine starts (vllm-project/vllm-ascend#14082).

Each release's code is read by scripts/gen_vllm_dp_launch.py into frameworks/data/vllm_dp_launch.json; a
release it does not hold (no wheel read) gives nothing. Pure: takes the parsed starts, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from argtrace.layers.nodescope import as_int
from argtrace.model import Finding
from argtrace.package_data import release_facts as package_release_facts
from argtrace.package_data import releases_table
from argtrace.rules import multinode as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class DpStart:
    """One parsed vLLM start as this check reads it."""

    index: int  # the server's 1-based index in the report
    at: str | None
    release: str  # the release whose schema parsed it
    values: Mapping[str, Any]  # by configuration field, defaults included
    given: frozenset[str]


_TABLE = "frameworks/data/vllm_dp_launch.json"  # written by scripts/gen_vllm_dp_launch.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_dp_launch.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def releases_read() -> list[str]:
    """The releases whose wheel the table was read from, oldest first."""
    from argtrace.frameworks.schema import version_key

    return sorted(releases_table(_TABLE), key=version_key)


def _where_rank_zero_is_head() -> str:
    """The releases whose check is the bare value, where a head given rank 0 keeps the internal-LB layout
    (a launch written for one of them is right there: tom-doerr/llm's DGX Spark head on v0.17.0)."""
    bare = [r for r in releases_read() if (release_facts(r) or {}).get("hybrid_from_start_rank") == "nonzero"]
    if not bare:
        return ""
    span = bare[0] if len(bare) == 1 else f"{bare[0]}-{bare[-1]}"
    return f"; vllm {span} test the bare value, where rank 0 stays the internal-LB head"


def _headless(start: DpStart) -> bool:
    return start.values.get("headless") is True


def dp_mode_findings(starts: Sequence[DpStart]) -> list[Finding]:
    """PA054 for every vLLM start of a file whose release the table holds."""
    findings: list[Finding] = []
    for start in starts:
        facts = release_facts(start.release)
        if facts is None:
            continue
        findings.extend(_api_servers_on_headless(start, facts))
        findings.extend(_inferred_external(start, facts, starts))
        findings.extend(_written_mode(start, facts, starts))
    return findings


def _same_launch(start: DpStart, starts: Sequence[DpStart]) -> list[DpStart]:
    """The file's other starts of ``start``'s launch: the same DP size and address."""
    values = start.values
    return [
        s
        for s in starts
        if s is not start
        and s.values.get("data_parallel_size") == values.get("data_parallel_size")
        and s.values.get("data_parallel_address") == values.get("data_parallel_address")
    ]


def _written_mode(start: DpStart, facts: Mapping[str, Any], starts: Sequence[DpStart]) -> list[Finding]:
    """A start that is not --headless with its mode written out (--data-parallel-rank,
    --data-parallel-external-lb, --data-parallel-hybrid-lb) beside --headless starts of its launch in the
    same file: the head refuses their engines."""
    values, given = start.values, start.given
    refused = str(facts.get("remote_headless_refused") or "")
    if _headless(start) or not refused:
        return []
    if "data_parallel_rank" in given:
        written = f"--data-parallel-rank {values.get('data_parallel_rank')}"
    elif values.get("data_parallel_external_lb") is True and "data_parallel_external_lb" in given:
        written = "--data-parallel-external-lb"
    elif values.get("data_parallel_hybrid_lb") is True and "data_parallel_hybrid_lb" in given:
        written = "--data-parallel-hybrid-lb"
    else:
        return []
    size = as_int(values.get("data_parallel_size"))
    local = as_int(values.get("data_parallel_size_local"))
    if (
        size is None
        or size < 2
        or (written == "--data-parallel-hybrid-lb" and local is not None and local >= size)
    ):
        return []  # not data parallel over nodes, or one node holds every rank (hybrid mode turned off)
    peers = [s for s in _same_launch(start, starts) if _headless(s)]
    if not peers:
        return []
    names = ", ".join(f"server {p.index}" for p in peers)
    said = refused.replace("{eng_index}", "N")
    return [
        rules.PA_DP_MODE.finding(
            f"{written} sets external or hybrid load balancing on a start that is not --headless, in which "
            f"every node serves its own API; {names} of the same launch "
            + ("is" if len(peers) == 1 else "are")
            + f" --headless, and vllm {start.release}'s head refuses a headless remote engine in that mode "
            f'("{said}"): the launch fails when the other node joins',
            at=start.at,
            setting=written.split()[0].removeprefix("--").replace("-", "_"),
            server=start.index,
            fix=f"start {names} without --headless (each then serves its own API), or remove {written} from "
            "this start for internal load balancing",
        )
    ]


def _api_servers_on_headless(start: DpStart, facts: Mapping[str, Any]) -> list[Finding]:
    bound = facts.get("headless_api_server_count")
    count = as_int(start.values.get("api_server_count"))
    if not _headless(start) or "api_server_count" not in start.given or count is None:
        return []
    if not isinstance(bound, Mapping) or count <= int(bound.get("above", 0)):
        return []
    said = str(bound.get("message") or "").replace("{args.api_server_count}", str(count))
    return [
        rules.PA_DP_MODE.finding(
            f"--api-server-count {count} on a --headless start: vllm {start.release} refuses it before any "
            f'engine starts (ValueError "{said}", vllm/entrypoints/cli/serve.py); a headless node runs '
            "engines only, the API servers run on the head",
            at=start.at,
            setting="api_server_count",
            server=start.index,
            fix="remove --api-server-count from the --headless start (give it to the head, if anywhere)",
        )
    ]


def _inferred_external(start: DpStart, facts: Mapping[str, Any], starts: Sequence[DpStart]) -> list[Finding]:
    """A head (not --headless) whose --data-parallel-start-rank makes the release take it for a hybrid or
    external load-balanced node, whose remote engines must then not be --headless."""
    form = facts.get("hybrid_from_start_rank")
    values, given = start.values, start.given
    if form not in ("set", "nonzero") or _headless(start) or "data_parallel_start_rank" not in given:
        return []
    if {"data_parallel_rank", "data_parallel_external_lb", "data_parallel_hybrid_lb"} & given:
        return []  # the mode is written, not inferred
    rank = as_int(values.get("data_parallel_start_rank"))
    size = as_int(values.get("data_parallel_size"))
    local = as_int(values.get("data_parallel_size_local"))
    if rank is None or size is None or local is None or size < 2 or local >= size:
        return []  # one node holds every rank: vLLM turns hybrid mode off
    if form == "nonzero" and rank == 0:
        return []  # rank 0 is the internal-LB head on this release
    mode = "external" if local == 1 and facts.get("local_one_external") else "hybrid"
    refused = str(facts.get("remote_headless_refused") or "")
    if not refused:
        return []
    launch = _same_launch(start, starts)
    peers = [s for s in launch if _headless(s)]
    if not peers and (rank != 0 or launch):
        # a node of a hybrid or external layout (vLLM's own guide), or one whose other nodes in this file
        # serve their own APIs too: the mode is the one meant
        return []
    said = refused.replace("{eng_index}", "N")
    inferred = (
        f"--data-parallel-start-rank {rank} on a start that is not --headless: vllm {start.release} takes it "
        f"for a hybrid load-balanced node (EngineArgs.create_engine_config"
        + (", which tests `data_parallel_start_rank is not None`, so rank 0 too" if rank == 0 else "")
        + (_where_rank_zero_is_head() if rank == 0 else "")
        + ")"
        + (
            ", and with --data-parallel-size-local 1 switches it to external load balancing"
            if mode == "external"
            else ""
        )
    )
    if peers:
        names = ", ".join(f"server {p.index}" for p in peers)
        return [
            rules.PA_DP_MODE.finding(
                f"{inferred}; {names} of the same launch "
                + ("is" if len(peers) == 1 else "are")
                + f' --headless, and the head refuses a headless remote engine in that mode ("{said}"): the '
                "launch fails when the other node joins",
                at=start.at,
                setting="data_parallel_start_rank",
                server=start.index,
                fix=f"remove --data-parallel-start-rank {rank} from the head (the internal-LB head runs "
                "ranks from 0), or start the other nodes without --headless so each serves its own API",
            )
        ]
    return [
        rules.PA_DP_MODE.finding(
            f"{inferred}: every other DP rank must then run its own API server, and the head refuses a "
            f'remote engine started with --headless ("{said}"), the internal-LB layout of vLLM\'s guide',
            at=start.at,
            setting="data_parallel_start_rank",
            server=start.index,
            severity="warning",
            basis="assumed",
            fix=f"remove --data-parallel-start-rank {rank} from the head if the other nodes run --headless "
            "(the internal-LB head runs ranks from 0)",
        )
    ]
