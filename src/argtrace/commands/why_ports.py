"""``why`` on SGLang's refusal of a port another process holds: "metrics_port at 40290 is not available in
30 seconds. metrics_port is used by a process already. process.name()='sglang'" (gpustack#5842).

``wait_port_available`` (``srt/utils/network.py`` of 0.5.23) polls the process table: its condition reads no
launch setting, only ``SGLANG_WAIT_PORT_TIMEOUT`` (how long it waits), so the site's own fix said "change
SGLANG_WAIT_PORT_TIMEOUT", which only delays the refusal. The port is the launch's: ``PortArgs.init_new``
derives each port it binds from the dist-init port (``--dist-init-addr``'s, else ``--port`` plus
``ZMQ_TCP_PORT_DELTA``), ``metrics_port = port_base + 3``, ``port_base = dist_init_port + 1``. Those offsets
per release come from ``frameworks/data/sglang_ports.json`` (scripts/gen_sglang_ports.py, from the releases'
``server_args.py``); the fix names the port's place in that chain and the flags that move it.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = "frameworks/data/sglang_ports.json"
_REFUSED = re.compile(r"\b(?P<name>\w+) at (?P<port>\d+) is not available in \d+ seconds")


@functools.cache
def _releases() -> dict[str, Any]:
    from argtrace.package_data import bundled_json

    table: dict[str, Any] = bundled_json(_TABLE).get("releases") or {}
    return table


def _newest() -> tuple[str, dict[str, Any]] | None:
    from argtrace.frameworks.schema import version_key

    releases = _releases()
    if not releases:
        return None
    release = max(releases, key=version_key)
    return release, releases[release]


def port_fix(text: str) -> str | None:
    """The fix for a port SGLang found taken, by the port's derivation in the newest release read; None
    when the text names no port or the release read does not wait for it."""
    refused = _REFUSED.search(text)
    newest = _newest()
    if refused is None or newest is None:
        return None
    release, facts = newest
    name, port = refused.group("name"), int(refused.group("port"))
    offset = (facts.get("waited") or {}).get(name)
    if offset is None:
        return None
    span = max((v for v in facts["waited"].values() if isinstance(v, int)), default=0)
    delta = facts.get("delta")
    origin = (
        f"the dist-init port is --dist-init-addr's port, else --port + {delta}"
        if delta is not None
        else "the dist-init port is --dist-init-addr's port"
    )
    if isinstance(offset, int):
        place = (
            f"{name} is the dist-init port + {offset}, so this server's dist-init port was {port - offset}"
        )
    else:
        place = f"{name} is {offset} there (--{name.replace('_', '-')} when given, else a free port)"
    return (
        f"another process holds port {port} (the message names it), which this server reserves as {name}: "
        f"SGLang {release} derives the ports it binds at start from one port ({origin}; "
        f"PortArgs.{facts.get('function', 'init_new')} waits for each): {place}; stop the process that holds "
        f"it, or start this server with a --port / --dist-init-addr whose next {span + 1} ports no other "
        "server uses (servers on one host need ports that far apart); SGLANG_WAIT_PORT_TIMEOUT only changes "
        "how long it waits"
    )


def add_port_cause(groups: list[dict[str, Any]], text: str) -> None:
    """The derivation's fix on each matched SGLang ``wait_port_available`` site (its own names only the
    wait's timeout)."""
    for group in groups:
        if group.get("framework") == "sglang" and str(group.get("function") or "").endswith(
            "wait_port_available"
        ):
            fix = port_fix(text)
            if fix is not None:
                group["fix"] = fix
