"""The network interface variables a server's process gets (TP030): ``GLOO_SOCKET_IFNAME`` and
``NCCL_SOCKET_IFNAME`` name interfaces, each with its own grammar.

- torch reads ``GLOO_SOCKET_IFNAME`` as a comma-separated list and hands each part, whole, to
  ``ProcessGroupGloo::createDeviceForInterface`` (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp and
  init.cpp); Gloo looks the part up by name among the machine's interfaces (gloo/transport/tcp/device.cc,
  ``lookupAddrForIface``) and stops with "Unable to find address for: PART" when none has it. NCCL's
  prefixes (``^`` to exclude, ``=`` for an exact name) are no part of that grammar, nor is an address.
  SGLang and vLLM build a Gloo group on every start (the CPU group beside NCCL), so the server stops there.
- NCCL reads ``NCCL_SOCKET_IFNAME`` as interface name prefixes (``^`` excludes, ``=`` is exact; NCCL's
  environment variable docs); an address matches no name, and the bootstrap stops with "no socket
  interface found".

Only values known statically are judged; a value from a command substitution (``$(ip route ...)``) is the
node's own. Pure: takes a server's environment, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Finding
from argtrace.model_launch import EnvValue
from argtrace.rules import Rule


def _tp030() -> Rule:
    """The rule, its catalog (rules/transport.py) imported only for a finding (start-up, issue 18)."""
    from argtrace.rules import transport

    return transport.TP030


def _address(part: str) -> bool:
    import ipaddress  # its network constants cost 4.8 M at import: only a variable's value asks (issue 18)

    try:
        ipaddress.ip_address(part.strip("[]"))
    except ValueError:
        return False
    return True


def _gloo(value: str, at: str | None, server: int) -> list[Finding]:
    parts = [p for p in value.split(",") if p]
    nccl = [p for p in parts if p[:1] in ("^", "=")]
    addresses = [p for p in parts if _address(p)]
    if nccl:
        bad = nccl[0]
        named = [p.lstrip("^=") for p in parts if p[:1] == "="]
        fix = (
            f"write GLOO_SOCKET_IFNAME={','.join(named)} (the names alone)"
            if named and len(named) == len(parts)
            else "set GLOO_SOCKET_IFNAME to the interface's own name (`ip -o -4 addr` lists them; the one "
            "that reaches the other nodes) and keep the `^...` list for NCCL_SOCKET_IFNAME only"
        )
        return [
            _tp030().finding(
                f"GLOO_SOCKET_IFNAME={value} uses NCCL's syntax (`^` excludes, `=` matches exactly): torch "
                "splits GLOO_SOCKET_IFNAME at commas and Gloo looks each part up as a whole interface name, "
                f"so `{bad}` names no interface and the server's first Gloo group stops with "
                f'"Unable to find address for: {bad}"',
                at=at,
                setting="GLOO_SOCKET_IFNAME",
                fix=fix,
                server=server,
            )
        ]
    if addresses:
        return [
            _tp030().finding(
                f"GLOO_SOCKET_IFNAME={value} gives an address where Gloo takes interface names: no "
                f"interface is called {addresses[0]}, and the server's first Gloo group stops with \"Unable "
                f'to find address for: {addresses[0]}"',
                at=at,
                setting="GLOO_SOCKET_IFNAME",
                fix=f"name the interface that holds {addresses[0]} (`ip -o -4 addr` shows it), or unset "
                "GLOO_SOCKET_IFNAME",
                server=server,
            )
        ]
    return []


def _nccl(value: str, at: str | None, server: int) -> list[Finding]:
    parts = [p.lstrip("^=") for p in value.split(",") if p]
    addresses = [p for p in parts if _address(p)]
    if not addresses or value.startswith("^"):
        return []  # an excluded address excludes nothing, and fails nothing
    return [
        _tp030().finding(
            f"NCCL_SOCKET_IFNAME={value} gives an address where NCCL takes interface name prefixes: no "
            f"interface name begins with {addresses[0]}, and NCCL's bootstrap stops with \"no socket "
            'interface found"',
            at=at,
            setting="NCCL_SOCKET_IFNAME",
            fix=f"name the interface that holds {addresses[0]} (`ip -o -4 addr` shows it), or unset "
            "NCCL_SOCKET_IFNAME",
            server=server,
        )
    ]


def interface_findings(env: Mapping[str, EnvValue], server: int, fallback_at: str | None) -> list[Finding]:
    """TP030 for one server's environment."""
    findings: list[Finding] = []
    for name, judge in (("GLOO_SOCKET_IFNAME", _gloo), ("NCCL_SOCKET_IFNAME", _nccl)):
        entry = env.get(name)
        if entry is None or not entry.value or not entry.origin.known:
            continue
        findings.extend(judge(entry.value.strip(), entry.origin.at or fallback_at, server))
    return findings
