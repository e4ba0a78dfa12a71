"""The fleet's replicas lined up: groups by framework, model and role; the settings a group disagrees on
(drift); each replica against an intended launch (``--intent``). Pure: the readers did all the I/O.

The allowances are the multi-node ones (``layers/multinode.py``): what differs per rank by design
(``PER_RANK``: ranks, ``--headless``, ports) is never drift. Beyond those, a replica of a fleet is a server
of its own, so what names *its* rendezvous (``dist_init_addr``, ``master_addr``...) and what it draws at
random at start (SGLang's ``random_seed`` when none is given) differ too; the measurements a server reports
beside its configuration (``live._VOLATILE``) are not settings.

Values are compared only between replicas read the same way: a live server reports what it *resolved*
(``mem_fraction_static`` 0.82), a process or a pod shows what it was *given* (nothing, so the parser's
default ``None``); comparing the two would call every auto-sized value drift.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace import safe_json
from argtrace.layers.multinode import MODEL, PER_RANK, RENDEZVOUS, NodeStart, multinode_findings
from argtrace.model import Evidence, Finding
from argtrace.rules import fleet as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What names one server's own rendezvous or start, beyond the per-rank settings.
PER_REPLICA: Mapping[str, tuple[str, ...]] = {
    "sglang": (
        "random_seed",
        "dist_init_addr",
        "nccl_port",
        "disaggregation_bootstrap_port",
        "encoder_bootstrap_port",
        "engine_info_bootstrap_port",
        "grpc_port",
        "gated_launch_port",
        "smg_http_sidecar_port",
        # two replicas on one node use different GPUs (--base-gpu-id 0 and 4)
        "base_gpu_id",
    ),
    "vllm": (
        "seed",
        "master_addr",
        "master_port",
        "data_parallel_address",
        "data_parallel_master_ip",
        "data_parallel_master_port",
        "data_parallel_rpc_port",
    ),
}
# Never configuration: where a pod or process is, not what it was given.
_NOT_SETTINGS = frozenset({"served_model_name_list", "api_key", "admin_api_key"})


@dataclass(frozen=True)
class Replica:
    """One running server. ``settings`` maps configuration field -> value; ``at`` says where each value was
    read (``URL#/pointer``, ``HOST pid N``, ``pod NS/NAME``); ``source`` is ``live`` (resolved values) or
    ``argv`` (given values plus the parser's defaults; ``given`` names the ones the argv set)."""

    target: str
    kind: str  # "url", "host", "kube"
    framework: str | None
    settings: Mapping[str, Any]
    at: Mapping[str, str] = field(default_factory=dict)
    source: str = "live"
    given: frozenset[str] = frozenset()
    version: str | None = None
    image: str | None = None

    @property
    def model(self) -> Any:
        if self.framework is None:
            return None
        return self.settings.get(MODEL.get(self.framework, "model"))

    @property
    def role(self) -> str | None:
        """The serving role: SGLang's ``disaggregation_mode`` (prefill, decode), vLLM's KV-transfer role
        (``kv_producer``, ``kv_consumer``); ``None`` for a server that does both."""
        mode = self.settings.get("disaggregation_mode")
        if isinstance(mode, str) and mode not in ("null", "none", ""):
            return mode
        transfer = self.settings.get("kv_transfer_config")
        if isinstance(transfer, Mapping):
            role = transfer.get("kv_role")
            return str(role) if role else None
        if isinstance(transfer, str) and transfer.strip().startswith("{"):
            try:
                role = safe_json.loads(transfer).get("kv_role")
            except (ValueError, AttributeError):
                return None
            return str(role) if role else None
        return None


@dataclass(frozen=True)
class Unanswered:
    """A target that gave no replica: ``why`` is one sentence (refused, timed out, no server process...)."""

    target: str
    kind: str
    why: str
    at: str | None = None


@dataclass
class FleetResult:
    """What ``fleet`` found across the servers it read: settings that drift between them, its findings, and
    the groups of servers that agree."""

    drift: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _text(value: Any) -> str:
    """The value as text, so that a value and the text form another endpoint gives of it compare equal
    (vLLM's ``/metrics`` labels are ``str(value)``: ``'[]'``, ``'True'``, ``'16'``)."""
    return value if isinstance(value, str) else str(value)


def show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def allowed(framework: str | None, name: str) -> bool:
    """Whether ``name`` may differ between replicas by design."""
    from argtrace.layers.live import _VOLATILE

    if name in _VOLATILE or name in _NOT_SETTINGS:
        return True
    if framework is None:
        return False
    return name in PER_RANK.get(framework, ()) or name in PER_REPLICA.get(framework, ())


def groups(replicas: Sequence[Replica]) -> list[list[Replica]]:
    """Replicas by (framework, model, role), in the order they were first seen."""
    out: dict[tuple[str, str, str], list[Replica]] = {}
    for replica in replicas:
        out.setdefault((str(replica.framework), _key(replica.model), str(replica.role)), []).append(replica)
    return list(out.values())


def _drift_in(group: Sequence[Replica]) -> list[dict[str, Any]]:
    framework = group[0].framework
    names: dict[str, None] = {}
    for replica in group:
        names.update(dict.fromkeys(replica.settings))
    model_field = MODEL.get(str(framework), "model")
    drift = []
    for name in names:
        if name == model_field or name in ("disaggregation_mode", "kv_transfer_config"):
            continue  # the grouping keys: equal within a group by construction
        if allowed(framework, name):
            continue
        if group[0].source == "argv" and not any(name in r.given for r in group):
            continue  # every replica has the parser's default: nothing anyone chose differs
        # Only the replicas that report the setting: a vLLM server without VLLM_SERVER_DEV_MODE reports a
        # few values (/metrics, /v1/models), and what it does not report is unknown, not different.
        values = [(r, r.settings[name]) for r in group if name in r.settings]
        if len(values) < 2 or len({_text(v) for _, v in values}) < 2:
            continue
        drift.append(
            {
                "setting": name,
                "values": [
                    {
                        "target": r.target,
                        "value": v,
                        "at": r.at.get(name, r.target),
                        **({"default": True} if r.source == "argv" and name not in r.given else {}),
                    }
                    for r, v in values
                ],
                "model": group[0].model,
                "role": group[0].role,
            }
        )
    return drift


def _drift_finding(entry: Mapping[str, Any], source: str) -> Finding:
    values = entry["values"]
    counts: dict[str, int] = {}
    for item in values:
        counts[_text(item["value"])] = counts.get(_text(item["value"]), 0) + 1
    common = max(counts, key=lambda k: counts[k])  # the first most common value: the others are odd
    odd = [v for v in values if _text(v["value"]) != common] or values[1:]
    listing = ", ".join(
        f"{v['target']}: {show(v['value'])}{' (default)' if v.get('default') else ''}" for v in values
    )
    role = f" ({entry['role']})" if entry["role"] else ""
    return rules.FLEET_DRIFT.finding(
        f"the {len(values)} replicas of {show(entry['model'])}{role} disagree on {entry['setting']}: "
        f"{listing}",
        at=odd[0]["at"],
        setting=entry["setting"],
        # the servers' own report, or the running argv as the parser reads it (observed either way)
        evidence=[
            Evidence(
                "live" if source == "live" else "parser", v["at"], f"{entry['setting']} = {show(v['value'])}"
            )
            for v in values
        ],
    )


def _multinode(group: Sequence[Replica]) -> list[Finding]:
    """Replicas read from argv that are nodes of one multi-node launch (the same rendezvous): the
    multi-node rules (PA030-PA032), with the replicas numbered in the order listed."""
    framework = group[0].framework
    if framework not in RENDEZVOUS or group[0].source != "argv":
        return []
    # One launch per rendezvous: replicas of a fleet are separate launches of one model (the multi-node
    # rules alone would take one model for one launch), and only nodes that meet are one server.
    by_rendezvous: dict[str, list[NodeStart]] = {}
    for i, r in enumerate(group, start=1):
        meet = [r.settings.get(name) for name in RENDEZVOUS[framework] if r.settings.get(name)]
        if meet:
            node = NodeStart(i, r.at.get("argv", r.target), framework, r.settings, r.given, r.image)
            by_rendezvous.setdefault(_key(meet), []).append(node)
    findings: list[Finding] = []
    for nodes in by_rendezvous.values():
        findings += multinode_findings(nodes)
    return findings


def _same(intended: Any, value: Any) -> bool:
    if _key(intended) == _key(value):
        return True
    try:  # "8192" on a command line and 8192 from a server are one value
        return float(str(intended)) == float(str(value))
    except ValueError:
        return str(intended).lower() == str(value).lower()


def intent_findings(
    replicas: Sequence[Replica], intent: Mapping[str, Any], label: str, framework: str
) -> list[Finding]:
    """Each replica of the file's framework against the launch file: every setting the file gives that
    the replica reports with another value."""
    findings = []
    for replica in replicas:
        if replica.framework != framework:
            continue
        for name, wanted in intent.items():
            if name not in replica.settings or allowed(replica.framework, name):
                continue
            got = replica.settings[name]
            if _same(wanted, got):
                continue
            findings.append(
                rules.FLEET_NOT_INTENDED.finding(
                    f"{replica.target} runs {name} = {show(got)}, but {label} gives {show(wanted)}",
                    at=replica.at.get(name, replica.target),
                    setting=name,
                    evidence=[
                        Evidence("parser", label, f"{name} = {show(wanted)}"),
                        Evidence("live", replica.at.get(name, replica.target), f"{name} = {show(got)}"),
                    ],
                )
            )
    return findings


def analyze_fleet(
    replicas: Sequence[Replica],
    unanswered: Sequence[Unanswered] = (),
    intent: tuple[str, str, Mapping[str, Any]] | None = None,
) -> FleetResult:
    """Drift per group and source, the multi-node rules for argv replicas of one launch, the targets that
    did not answer, and with ``intent`` (label, framework, settings the launch file gives) each replica of
    that framework against it."""
    result = FleetResult()
    for miss in unanswered:
        result.findings.append(
            rules.FLEET_NO_ANSWER.finding(f"{miss.target}: {miss.why}", at=miss.at or miss.target)
        )
    for group in groups(replicas):
        result.groups.append(
            {
                "framework": group[0].framework,
                "model": group[0].model,
                "role": group[0].role,
                "targets": [r.target for r in group],
            }
        )
        by_source: dict[str, list[Replica]] = {}
        for replica in group:
            by_source.setdefault(replica.source, []).append(replica)
        for part in by_source.values():
            if len(part) < 2:
                continue
            entries = _drift_in(part)
            result.drift.extend(entries)
            result.findings.extend(_drift_finding(e, part[0].source) for e in entries)
            result.findings.extend(_multinode(part))
    if intent is not None:
        label, framework, wanted = intent
        result.findings.extend(intent_findings(replicas, wanted, label, framework))
    return result


def replica_dict(replica: Replica) -> dict[str, Any]:
    """The JSON of one replica (``replicas`` in the report); extra keys beside the issue's three."""
    return {
        "target": replica.target,
        "framework": replica.framework,
        "settings": dict(replica.settings),
        "kind": replica.kind,
        "source": replica.source,
        "version": replica.version,
        "model": replica.model,
        "role": replica.role,
        **({"image": replica.image} if replica.image else {}),
        **({"given": sorted(replica.given)} if replica.source == "argv" else {}),
    }
