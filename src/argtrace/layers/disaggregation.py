"""Prefill/decode disaggregation: the PD servers of one file and the SGLang router in front of them, read
together (PA041-PA043, and PA001 for the router's own words).

Input: each parsed server start (its framework's values, the flags it gave, its environment, whether it
runs on this file's machine) and each ``python -m sglang_router.launch_router`` the file runs
(``frameworks/router_launch.py``). What is checked follows the frameworks' code:

- SGLang 0.5.23: the bootstrap server runs on a prefill server only, bound to its ``--host`` at its
  ``--disaggregation-bootstrap-port`` (``managers/disagg_service.py``); a request whose router gave no
  bootstrap port gets the decode server's own ``--disaggregation-bootstrap-port``
  (``managers/scheduler.py``, ``handle_generate_request``); each side builds its KV classes from its own
  ``--disaggregation-transfer-backend`` (``get_kv_class``).
- sglang-router: ``--prefill URL [BOOTSTRAP_PORT]`` (port, ``none`` or left out: None), ``--decode URL``.
- ``vllm-router`` (PyPI's vllm-project/router, or production-stack's router, ``frameworks/router_launch.py``):
  its own words per release; production-stack's static discovery against its ``validate_args``,
  ``parse_static_urls`` and ``StaticServiceDiscovery`` (PA020).
- vLLM 0.33.0: ``KVTransferConfig.__post_init__`` (``config/kv_transfer.py``) refuses a connector without a
  kv_role; NixlConnector's handshake listener binds ``VLLM_NIXL_SIDE_CHANNEL_HOST:PORT`` (``envs.py``:
  localhost, 5600).

Servers are "on the router's machine" when the file starts them itself (no ssh, no pod, no image): the
caller says so per server.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from argtrace import safe_json
from argtrace.frameworks.router_launch import RouterLaunch
from argtrace.model import Basis, Evidence, Finding, Severity, as_int
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::1", ""})
_SGLANG_SERVER_PORT = 30000  # ServerArgs.port's default
_SGLANG_LAUNCHERS = frozenset({"sglang.launch_server", "sglang serve", "sglang_router.launch_server"})
_NIXL_DEFAULT_PORT = "5600"  # vLLM 0.33.0 envs.py (5557 before 0.11.1: equal defaults clash either way)


@dataclass(frozen=True)
class PdServer:
    """One parsed server start as the PD checks need it."""

    index: int  # 1-based, as the report numbers servers
    at: str | None
    framework: str
    values: Mapping[str, Any]  # dest -> value (parser defaults included)
    given: frozenset[str]
    env: Mapping[str, str | None]  # the start's environment (None: set, value unknown)
    local: bool  # started by this file on its own machine (not over ssh, not in a pod or image)
    release: str | None = None  # the release whose schema parsed it
    entrypoint: str = ""  # "sglang.launch_server", "dynamo.sglang", "vllm serve"...
    machine: str | None = None  # "this machine", "<ssh HOST>", or None: not known (a pod, a variable host)
    # where the file ran a command that stops processes (kill, pkill, `xargs kill`...) before this start: two
    # starts with different stops before them may not run at once (a benchmark that kills one setup first)
    stops_before: tuple[str, ...] = ()


def _stop_between(first: PdServer, later: PdServer) -> str | None:
    """The first stop the file runs after ``first`` starts and before ``later`` does, if any."""
    between = later.stops_before[len(first.stops_before) :]
    return between[0] if len(later.stops_before) > len(first.stops_before) and between else None


def _clash_basis(clash: Sequence[PdServer]) -> tuple[Severity, Basis | None, str]:
    """Severity, basis and the message's tail for listeners of one address: certain (error) when the file
    stops nothing between the starts; when it runs a stop between two of them, the first may be gone when
    the second binds, so the clash rests on that stop not ending it (info, assumed)."""
    stops = [at for a, b in itertools.pairwise(clash) if (at := _stop_between(a, b)) is not None]
    if not stops:
        return "error", None, ""
    return (
        "info",
        "assumed",
        f", if they run at once: the file stops processes between these starts ({stops[0]}), which may end "
        "the first before the second binds",
    )


@dataclass
class _Pd:
    """The findings of one prefill/decode disaggregated launch, gathered as its servers are compared."""

    findings: list[Finding] = field(default_factory=list)


def _known(server: PdServer, name: str, default: object) -> object:
    """The start's value of ``name``; None when its argv gives it but the value is not known statically
    (the values hold the release's defaults for what the argv does not give)."""
    if name in server.values:
        return server.values[name]
    return None if name in server.given else default


def _mode(server: PdServer) -> str:
    mode = _known(server, "disaggregation_mode", "null")
    return "?" if mode is None and "disaggregation_mode" in server.given else str(mode or "null")


def _host(server: PdServer) -> str | None:
    host = _known(server, "host", "127.0.0.1")
    return None if host is None else str(host)


def _port(server: PdServer) -> int | None:
    return as_int(_known(server, "port", _SGLANG_SERVER_PORT))


def _bootstrap(server: PdServer) -> int | None:
    return as_int(_known(server, "disaggregation_bootstrap_port", 8998))


def _same_bind(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and (a == b or "0.0.0.0" in (a, b))


def _first_rank(server: PdServer) -> bool:
    return as_int(server.values.get("node_rank", 0)) in (0, None)


def _server_at(url: str, servers: Sequence[PdServer]) -> list[PdServer]:
    """The SGLang servers this file starts on the router's machine that a router URL names (by port)."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        port = parts.port
    except ValueError:
        return []
    host = parts.hostname or ""
    if port is None:
        return []
    return [
        s
        for s in servers
        if s.framework == "sglang"
        and s.local
        and _port(s) == port
        and (host in _LOCAL_HOSTS or host == _host(s))
    ]


def _router_words(router: RouterLaunch, out: list[Finding]) -> None:
    from argtrace.frameworks.router_launch import pd_requires_urls, read_releases
    from argtrace.rules import parser as rules

    release = router.release
    label = release.label
    product = release.product
    # the installed release, read exactly: its parser's refusal is a fact; else it rests on the release
    exact = release.installed is not None and release.installed == release.analysed
    severity: Severity = "error" if exact else "warning"
    basis: Basis = "static" if exact else "assumed"
    releases = read_releases(product)
    launcher = {"smg": "smg launch", "vllm-router": "vllm-router", "production-stack": "vllm-router"}.get(
        product, "launch_router"
    )
    help_of = "vllm-router" if launcher == "vllm-router" else "python -m sglang_router.launch_router"
    # production-stack's router shares the command name vllm-router (servers_together reads it as that
    # router when only its parser takes the words): while neither installed router is read, what both
    # refuse is one note (an older production-stack release may still take a word)
    unknown = router.unknown
    if product == "vllm-router" and release.installed is None and unknown:
        stack = read_releases("production-stack")
        out.append(
            rules.PA_UNRECOGNIZED.finding(
                f"no PyPI vllm-router release read ({releases[0]}-{releases[-1]}, vllm-project/router) takes "
                f"{', '.join(unknown)}, and production-stack's router, which shares the command name "
                f"(vllm_router.app:main; its parse_args read at {stack[0]}-{stack[-1]}), refuses words of it "
                'too: vllm-router would refuse to start ("unrecognized arguments", exit 2); the router '
                "installed is not known",
                at=router.at,
                fix="check `vllm-router --help` of the router installed",
                severity="info",
                basis="assumed",
            )
        )
        unknown = []
    for word in unknown:
        out.append(
            rules.PA_UNRECOGNIZED.finding(
                f"{word}: no {product} release read ({releases[0]}-{releases[-1]}) takes it, so "
                f'{launcher} refuses to start ("unrecognized arguments", exit 2); {label}',
                at=router.at,
                fix=f"remove the word, or check `{help_of} --help` of the release installed",
                severity="warning",
                basis="assumed",
            )
        )
    if release.installed is None:
        # the newest release takes these; older ones refuse them, and which one runs is not known
        newer_only = {
            o.flag: o.releases[0] for o in router.used if o.releases and o.releases[0] != releases[0]
        }
        if newer_only:
            first = {since: [f for f, s in newer_only.items() if s == since] for since in newer_only.values()}
            listed = "; ".join(f"{', '.join(flags)} from {since}" for since, flags in first.items())
            latest = max(first, key=releases.index)
            older = releases[: releases.index(latest)]
            span = older[0] if len(older) == 1 else f"{older[0]}-{older[-1]}"
            out.append(
                rules.PA_UNRECOGNIZED.finding(
                    f"{product} {span} refuse{'s' if len(older) == 1 else ''} flags of this {launcher} "
                    f'("unrecognized arguments"): {listed}; the release installed is not known',
                    at=router.at,
                    fix=f"run {product} {latest} or later",
                    severity="info",
                    basis="assumed",
                )
            )
    for flag, taken in router.older:
        span = f"{taken[0]}-{taken[-1]}" if len(taken) > 1 else taken[0]
        newer = [r for r in taken if releases.index(r) > releases.index(release.analysed)]
        out.append(
            rules.PA_UNRECOGNIZED.finding(
                f"{flag} is taken by {product} {span} but not by {label}: its {launcher} refuses it "
                '("unrecognized arguments", exit 2)',
                at=router.at,
                fix=f"upgrade {product} to {newer[0]} or later, or remove the flag"
                if newer
                else f"remove the flag, or run {product} {taken[-1]}",
                severity=severity,
                basis=basis,
            )
        )
    if product == "production-stack":
        from argtrace.frameworks.router_launch import production_stack_static

        static = production_stack_static(router)
        if static is not None:
            # every read tag of production-stack's router does it (the message names them)
            out.append(rules.PA_REQUIRED.finding(static[0], at=router.at, fix=static[1]))
    for problem in router.problems:
        rule = rules.PA_INVALID_CHOICE if "invalid choice" in problem else rules.PA_MISSING_VALUE
        out.append(
            rule.finding(
                f"{launcher}: {problem} ({label}): exit 2", at=router.at, severity=severity, basis=basis
            )
        )
    if router.pd and not router.service_discovery and not (router.prefill and router.decode):
        refusing = pd_requires_urls(product)
        if not refusing:
            return
        missing = "--prefill" if not router.prefill else "--decode"
        message = (
            f"launch_router in PD mode without {missing}: sglang-router {refusing[0]}-{refusing[-1]} "
            "refuse it "
            f'("PD disaggregation mode requires {missing}", RouterArgs._validate_router_args), '
            f"{releases[releases.index(refusing[-1]) + 1]} and later start and wait for workers to register"
        )
        from argtrace.rules.disaggregation import PA_PD_DISAGREE

        first_taking = releases[releases.index(refusing[-1]) + 1]
        if release.analysed in refusing:
            out.append(
                PA_PD_DISAGREE.finding(
                    f"{message}; {label} refuses it",
                    at=router.at,
                    setting="prefill_urls",
                    fix="give the router its prefill and decode servers (--prefill URL [PORT] --decode "
                    f"URL), or upgrade sglang-router to {first_taking} or later",
                    severity=severity,
                    basis=basis,
                )
            )
        elif release.installed is None:
            out.append(
                PA_PD_DISAGREE.finding(
                    f"{message}; the release installed is not known",
                    at=router.at,
                    setting="prefill_urls",
                    severity="info",
                    basis="assumed",
                    fix="give the router its prefill and decode servers (--prefill URL [PORT] --decode URL)",
                )
            )


def _router_pairs(router: RouterLaunch, servers: Sequence[PdServer], out: list[Finding]) -> None:
    from argtrace.rules.disaggregation import PA_PD_DISAGREE

    decodes: list[PdServer] = []
    for url in router.decode:
        for s in _server_at(url, servers):
            if _mode(s) != "decode":
                out.append(
                    PA_PD_DISAGREE.finding(
                        f"the router's --decode {url} is server {s.index}, started with "
                        f"--disaggregation-mode "
                        f"{_mode(s)}: the router sends it the decode half of every request",
                        at=router.at,
                        setting="disaggregation_mode",
                        fix="point --decode at the decode server's port, or start that server in decode mode",
                    )
                )
            else:
                decodes.append(s)
    for url, given in router.prefill:
        for s in _server_at(url, servers):
            if _mode(s) != "prefill":
                out.append(
                    PA_PD_DISAGREE.finding(
                        f"the router's --prefill {url} is server {s.index}, started with "
                        f"--disaggregation-mode "
                        f"{_mode(s)}: the router sends it the prefill half of every request",
                        at=router.at,
                        setting="disaggregation_mode",
                        fix="point --prefill at the prefill server's port, or start that server in "
                        "prefill mode",
                    )
                )
                continue
            listens = _bootstrap(s)
            port = None if given is None or given.lower() == "none" else as_int(given)
            if port is not None:
                if listens is not None and port != listens:
                    out.append(
                        PA_PD_DISAGREE.finding(
                            f"the router gives bootstrap port {port} for --prefill {url}, but server "
                            f"{s.index}'s "
                            f"bootstrap server listens on {listens} (--disaggregation-bootstrap-port): "
                            f"the decode "
                            "server asks the wrong port for every KV cache (connection refused)",
                            at=router.at,
                            setting="disaggregation_bootstrap_port",
                            evidence=(Evidence("parser", s.at, f"server {s.index}: {listens}"),),
                            fix=f"--prefill {url} {listens}",
                        )
                    )
                continue
            for d in decodes:
                asks = _bootstrap(d)
                if asks is not None and listens is not None and asks != listens:
                    out.append(
                        PA_PD_DISAGREE.finding(
                            f"the router gives no bootstrap port for --prefill {url}, so decode server "
                            f"{d.index} "
                            f"asks its own --disaggregation-bootstrap-port {asks}, but prefill server "
                            f"{s.index} "
                            f"listens on {listens}: every KV transfer fails (connection refused)",
                            at=router.at,
                            setting="disaggregation_bootstrap_port",
                            evidence=(
                                Evidence("parser", s.at, f"server {s.index}: {listens}"),
                                Evidence("parser", d.at, f"server {d.index}: {asks}"),
                            ),
                            fix=f"--prefill {url} {listens}",
                        )
                    )


def _backends(servers: Sequence[PdServer], out: list[Finding]) -> None:
    """Prefill and decode servers of one model on different transfer backends."""
    from argtrace.rules.disaggregation import PA_PD_DISAGREE

    sg = [s for s in servers if s.framework == "sglang" and _mode(s) in ("prefill", "decode")]
    prefills = [s for s in sg if _mode(s) == "prefill"]
    decodes = [s for s in sg if _mode(s) == "decode"]
    if not prefills or not decodes:
        return
    # a backend left at SGLang's default is mooncake for SGLang's own launchers; another launcher (Dynamo's
    # workers) may set its own default, so only what it writes is compared there
    backend = {
        s.index: str(s.values.get("disaggregation_transfer_backend") or "mooncake")
        for s in sg
        if "disaggregation_transfer_backend" in s.given or s.entrypoint in _SGLANG_LAUNCHERS
    }
    if len(set(backend.values())) > 1:
        out.append(
            PA_PD_DISAGREE.finding(
                "the prefill and decode servers use different KV transfer backends ("
                + ", ".join(f"server {i}: {b}" for i, b in backend.items())
                + "): each side builds its KV sender or receiver from its own backend, so no KV cache passes",
                at=decodes[0].at,
                setting="disaggregation_transfer_backend",
                evidence=tuple(Evidence("parser", None, f"server {i}: {b}") for i, b in backend.items()),
                fix="give every prefill and decode server the same --disaggregation-transfer-backend",
            )
        )
    tps = {s.index: as_int(s.values.get("tp_size", 1)) for s in sg}
    if len({tps[s.index] for s in prefills} | {tps[s.index] for s in decodes}) > 1:
        # SGLang slices the KV cache between TP sizes for MLA and plain attention, but refuses it for non-MLA
        # hybrid models (SWA, mamba states): which kind the model is needs its config, not read here
        out.append(
            PA_PD_DISAGREE.finding(
                "the prefill and decode servers run different TP sizes ("
                + ", ".join(f"server {i}: {t}" for i, t in tps.items())
                + "): SGLang transfers the KV cache between them for MLA and plain attention models, but "
                "refuses it for non-MLA hybrid models (sliding-window or state layers: "
                '"PD Disaggregation does NOT support PD different TP sizes for non-MLA ... hybrid models '
                'yet", SGLang 0.5.23 disaggregation/nixl/conn.py and mooncake/conn.py) at the first request',
                at=decodes[0].at,
                setting="tp_size",
                severity="info",
                basis="assumed",
                fix="give the prefill and decode servers the same --tp-size if the model has sliding-window "
                "or state layers",
            )
        )
    models = {s.index: str(s.values.get("model_path")) for s in sg}
    if len(set(models.values())) > 1:
        out.append(
            PA_PD_DISAGREE.finding(
                "the prefill and decode servers load different model paths ("
                + ", ".join(f"server {i}: {m}" for i, m in models.items())
                + "): the decode server needs the KV cache of its own model",
                at=decodes[0].at,
                setting="model_path",
                severity="warning",
                basis="assumed",
                fix="start the prefill and decode servers with the same --model-path",
            )
        )


def _kv_config(server: PdServer) -> dict[str, Any] | None:
    raw = server.values.get("kv_transfer_config")
    if raw is None:
        return None
    if isinstance(raw, dict):
        return raw
    if hasattr(raw, "__dict__"):
        return dict(vars(raw))
    try:
        data = safe_json.loads(str(raw))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


@lru_cache(maxsize=1)
def _kv_data() -> dict[str, Any]:
    data: dict[str, Any] = bundled_json("frameworks/data/vllm_kv_connectors.json")
    return data


def _kv_connectors() -> dict[str, dict[str, str]]:
    """vLLM release -> connector name -> "v1"/"v0", generated by scripts/gen_kv_connectors.py."""
    return {str(k): dict(v) for k, v in _kv_data()["releases"].items() if v}


def bundled_connectors() -> dict[str, set[str]]:
    """Release -> the KV connectors it registers, for the read releases (scripts/gen_kv_connectors.py)."""
    return {release: set(names) for release, names in _kv_connectors().items()}


def _required_extra(release: str | None) -> dict[str, list[str]]:
    """connector -> the kv_connector_extra_config keys its code requires in ``release``."""
    return dict(_kv_data().get("required_extra", {}).get(release or "", {}))


# what shows a launch runs on a vLLM platform plugin (vllm-ascend): its quantization method, its variables;
# the plugin registers its own KV connectors, quantization methods and attention backends at start-up
_PLATFORM_QUANTIZATION = {"ascend": "Ascend NPU: --quantization ascend"}
_PLATFORM_ENV_PREFIXES = (
    ("VLLM_ASCEND_", "Ascend NPU"),
    ("ASCEND_RT_", "Ascend NPU"),
    ("HCCL_", "Ascend NPU"),
)


def out_of_tree_platform(
    values: Mapping[str, Any], given: frozenset[str], env: Mapping[str, str | None]
) -> str | None:
    """The platform plugin the launch shows (a label naming the evidence), or None."""
    quantization = values.get("quantization") if "quantization" in given else None
    if isinstance(quantization, str) and quantization in _PLATFORM_QUANTIZATION:
        return _PLATFORM_QUANTIZATION[quantization]
    for name in sorted(env):
        for prefix, label in _PLATFORM_ENV_PREFIXES:
            if name.startswith(prefix):
                return f"{label}: {name}"
    return None


def _connector(server: PdServer, config: Mapping[str, Any], out: list[Finding]) -> None:
    """The kv_connector against the connectors the analysed vLLM release registers."""
    from argtrace.rules.disaggregation import PA_KV_TRANSFER_CONFIG

    name = config.get("kv_connector")
    registry = _kv_connectors().get(server.release or "")
    if not isinstance(name, str) or registry is None or config.get("kv_connector_module_path"):
        return
    if name not in registry:
        v1 = f"{name}V1" if f"{name}V1" in registry else None
        platform = out_of_tree_platform(server.values, server.given, server.env)
        if platform and not v1:
            # a platform plugin registers its own connectors with KVConnectorFactory.register_connector when
            # vLLM loads it (vllm-ascend's MooncakeConnectorV1, vllm-ascend#11863): vLLM's own list is not
            # the registry this server gets, so the name is not known to be refused
            out.append(
                PA_KV_TRANSFER_CONFIG.finding(
                    f"vllm {server.release} itself registers no KV connector {name!r}; the launch runs on an "
                    f"out-of-tree platform ({platform}), whose plugin may register it",
                    at=server.at,
                    setting="kv_transfer_config",
                    severity="info",
                    basis="assumed",
                    fix="none needed if the platform plugin registers the connector; otherwise use one of "
                    + ", ".join(registry),
                )
            )
            return
        out.append(
            PA_KV_TRANSFER_CONFIG.finding(
                f"vllm {server.release} registers no KV connector {name!r} ({', '.join(registry)}): the "
                f'engine stops with "Unsupported connector type: {name}"',
                at=server.at,
                setting="kv_transfer_config",
                fix=f'use "kv_connector":"{v1}"' if v1 else "use a connector this release registers",
            )
        )
        return
    extra = config.get("kv_connector_extra_config")
    missing = [
        k
        for k in _required_extra(server.release).get(name, [])
        if not (isinstance(extra, dict) and k in extra)
    ]
    if missing:
        out.append(
            PA_KV_TRANSFER_CONFIG.finding(
                f"{name} of vllm {server.release} reads kv_connector_extra_config {', '.join(missing)}, "
                "which --kv-transfer-config does not give: the engine stops when it builds the connector "
                f"(KeyError: '{missing[0]}')",
                at=server.at,
                setting="kv_transfer_config",
                fix=f'add "kv_connector_extra_config":{{"{missing[0]}": ...}}'
                + (" (the server's --port)" if missing[0] == "http_port" else ""),
            )
        )
    use_v1 = server.env.get("VLLM_USE_V1", "")
    if registry[name] == "v0" and "v1" in registry.values() and use_v1 != "0":
        v1 = f"{name}V1" if registry.get(f"{name}V1") == "v1" else None
        explicit = use_v1 == "1"
        out.append(
            PA_KV_TRANSFER_CONFIG.finding(
                f"{name!r} is a V0-engine KV connector and vllm {server.release} runs the V1 engine "
                + ("(VLLM_USE_V1=1)" if explicit else "by default (VLLM_USE_V1 unset)")
                + ": KVConnectorFactory.create_connector_v1 asserts a V1 connector class and the engine "
                "stops",
                at=server.at,
                setting="kv_transfer_config",
                severity="error" if explicit else "warning",
                basis=None if explicit else "assumed",
                fix=f'use "kv_connector":"{v1}"'
                if v1
                else "use a V1 connector (" + ", ".join(n for n, k in registry.items() if k == "v1") + ")",
            )
        )


def _vllm(servers: Sequence[PdServer], out: list[Finding]) -> None:
    from argtrace.rules.disaggregation import PA_KV_TRANSFER_CONFIG, PA_PD_DISAGREE, PA_PD_PORT_CLASH

    configs = [(s, c) for s in servers if s.framework == "vllm" for c in [_kv_config(s)] if c is not None]
    for s, c in configs:
        before = len(out)
        role = c.get("kv_role")
        if c.get("kv_connector") is not None and role is None:
            out.append(
                PA_KV_TRANSFER_CONFIG.finding(
                    f"--kv-transfer-config names kv_connector {c['kv_connector']!r} and no kv_role: vLLM's "
                    'KVTransferConfig refuses it ("Please specify kv_role when kv_connector is set") and the '
                    "server does not start",
                    at=s.at,
                    setting="kv_transfer_config",
                )
            )
        elif role is not None and role not in ("kv_producer", "kv_consumer", "kv_both"):
            out.append(
                PA_KV_TRANSFER_CONFIG.finding(
                    f"--kv-transfer-config kv_role {role!r} is none of kv_producer, kv_consumer, "
                    f"kv_both: vLLM's "
                    "KVTransferConfig refuses it and the server does not start",
                    at=s.at,
                    setting="kv_transfer_config",
                )
            )
        if len(out) == before:  # the config parsed: the engine gets as far as its connector
            _connector(s, c, out)
    nccl = [(s, c) for s, c in configs if c.get("kv_connector") == "PyNcclConnector"]
    ranks: dict[str, list[int]] = {}
    for s, c in nccl:
        ranks.setdefault(str(c.get("kv_rank")), []).append(s.index)
    for rank, which in ranks.items():
        if len(which) > 1 and rank != "None":
            out.append(
                PA_PD_DISAGREE.finding(
                    f"servers {', '.join(map(str, which))} are all PyNcclConnector kv_rank {rank} "
                    f"({', '.join(str(c.get('kv_role')) for s, c in nccl if s.index in which)}): each "
                    f"rank of "
                    "the KV transfer group is one instance (vLLM's example: the prefill kv_producer "
                    "rank 0, the "
                    "decode kv_consumer rank 1), so the group never forms and no KV cache passes",
                    at=nccl[-1][0].at,
                    setting="kv_transfer_config",
                    fix='give the decode instance "kv_role":"kv_consumer","kv_rank":1',
                )
            )
    tps = {s.index: as_int(s.values.get("tensor_parallel_size", 1)) for s, _ in nccl}
    if len(set(tps.values())) > 1:
        out.append(
            PA_PD_DISAGREE.finding(
                "the PyNcclConnector instances run different tensor parallel sizes ("
                + ", ".join(f"server {i}: {t}" for i, t in tps.items())
                + "): its pipe pairs each TP rank of the producer with the same rank of the consumer, so the "
                "ranks without a peer wait for the KV cache (vllm#14952: the decode instance hangs)",
                at=nccl[-1][0].at,
                setting="tensor_parallel_size",
                severity="warning",
                basis="assumed",
                fix="give the prefill and decode instances the same --tensor-parallel-size",
            )
        )
    nixl: dict[tuple[str, str], list[PdServer]] = {}
    for s, c in configs:
        if s.local and c.get("kv_connector") == "NixlConnector":
            port = s.env.get("VLLM_NIXL_SIDE_CHANNEL_PORT", _NIXL_DEFAULT_PORT)
            host = s.env.get("VLLM_NIXL_SIDE_CHANNEL_HOST", "localhost")
            if port is not None and host is not None:
                nixl.setdefault((host, port), []).append(s)
    for (host, port), clash in nixl.items():
        if len(clash) > 1:
            severity, basis, unless = _clash_basis(clash)
            out.append(
                PA_PD_PORT_CLASH.finding(
                    f"servers {', '.join(str(s.index) for s in clash)} start NixlConnector on this "
                    f"machine with "
                    f"one side channel {host}:{port} (VLLM_NIXL_SIDE_CHANNEL_HOST/PORT, "
                    + ("set" if port != _NIXL_DEFAULT_PORT else "the default")
                    + '): the second handshake listener cannot bind ("Address already in use")'
                    + unless,
                    at=clash[-1].at,
                    severity=severity,
                    basis=basis,
                    setting="VLLM_NIXL_SIDE_CHANNEL_PORT",
                    fix="give each instance on the machine its own VLLM_NIXL_SIDE_CHANNEL_PORT",
                )
            )


def _bootstrap_clash(servers: Sequence[PdServer], out: list[Finding]) -> None:
    from argtrace.rules.disaggregation import PA_PD_PORT_CLASH

    prefills = [
        s for s in servers if s.framework == "sglang" and s.local and _mode(s) == "prefill" and _first_rank(s)
    ]
    seen: list[PdServer] = []
    for s in prefills:
        for other in seen:
            port = _bootstrap(s)
            if port is not None and port == _bootstrap(other) and _same_bind(_host(s), _host(other)):
                severity, basis, unless = _clash_basis((other, s))
                out.append(
                    PA_PD_PORT_CLASH.finding(
                        f"prefill servers {other.index} and {s.index} both start their bootstrap server on "
                        f"{_host(s)}:{_bootstrap(s)} on this machine: the second cannot bind "
                        '("Address already in use") and its KV transfers never start' + unless,
                        at=s.at,
                        severity=severity,
                        basis=basis,
                        setting="disaggregation_bootstrap_port",
                        fix="give each prefill server on the machine its own --disaggregation-bootstrap-port "
                        "(and the router `--prefill URL PORT`)",
                    )
                )
                break
        seen.append(s)


def _loopback_bootstrap(servers: Sequence[PdServer], out: list[Finding]) -> None:
    """A prefill server whose bootstrap server listens on loopback, and a decode server on another machine."""
    from argtrace.rules.disaggregation import PA_PD_DISAGREE

    sg = [s for s in servers if s.framework == "sglang" and s.machine is not None]
    for p in sg:
        if _mode(p) != "prefill" or not _first_rank(p) or _host(p) not in ("127.0.0.1", "localhost", "::1"):
            continue
        away = [d for d in sg if _mode(d) == "decode" and d.machine != p.machine]
        if away:
            out.append(
                PA_PD_DISAGREE.finding(
                    f"prefill server {p.index} starts its bootstrap server on {_host(p)} (--host"
                    + ("" if "host" in p.given else ", SGLang's default")
                    + f") of {p.machine}, but decode server {away[0].index} runs on {away[0].machine}: it "
                    "cannot reach the bootstrap server (connection refused), as SGLang binds it to --host "
                    "since 0.5.2 (sgl-project/sglang#9931; 0.5.23 managers/disagg_service.py)",
                    at=p.at,
                    setting="host",
                    basis="framework-code",
                    fix="start the prefill server with --host 0.0.0.0 (or an address the decode servers "
                    "reach)",
                )
            )


def pd_findings(servers: Sequence[PdServer], routers: Sequence[RouterLaunch]) -> list[Finding]:
    """Every PD finding of one file: the routers' own words, their URLs against the servers, the servers
    against each other."""
    out: list[Finding] = []
    for router in routers:
        _router_words(router, out)
        if router.pd:
            _router_pairs(router, servers, out)
    _backends(servers, out)
    _bootstrap_clash(servers, out)
    _loopback_bootstrap(servers, out)
    _vllm(servers, out)
    return out
