"""``fleet --host [USER@]HOST``: the SGLang/vLLM server processes of a node over ssh, as
``argtrace --host HOST ps`` finds them (``layers/observed_remote.py``), each one replica whose settings are
its argv as the framework's parser reads it (``argv.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.layers.fleet.analysis import Replica, Unanswered
from argtrace.remote.ssh import RemoteHost, SshTarget


class FleetHost(RemoteHost):
    """A node of the fleet: a :class:`RemoteHost` that another thread can abort (``parallel.py`` does it
    at the node's deadline: killing ssh ends the read that waits for it)."""

    def abort(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()


def open_host(target: SshTarget, options: Sequence[str], timeout: float) -> FleetHost:
    # The user's -o options win (ssh keeps the first value of an option); ours bound the connection.
    return FleetHost(target, [*options, f"ConnectTimeout={max(1, int(timeout))}"])


def read_host(host: FleetHost) -> list[Replica | Unanswered]:
    from argtrace.layers.fleet.argv import argv_settings, release_schema, server_from_argv
    from argtrace.layers.observed_remote import find_servers_on
    from argtrace.remote.host import HostError

    try:
        servers = find_servers_on(host)
    except HostError as exc:
        return [Unanswered(host.label, "host", str(exc).removeprefix(f"{host.label}: "))]
    finally:
        host.close()
    if not servers:
        return [Unanswered(host.label, "host", "no SGLang or vLLM server process is running there")]
    out: list[Replica | Unanswered] = []
    for observed in servers:
        pid = getattr(observed, "pid", None)
        target = f"{host.label} pid {pid}"
        argv = [w for w in getattr(observed, "argv", ()) if w is not None]
        server = server_from_argv(target, argv, getattr(observed, "env", None))
        if server is None:
            continue
        schema, named = release_schema(server.framework, getattr(observed, "framework_version", None), None)
        settings, given = argv_settings(server, schema)
        if named:  # the release installed where the process runs (its site-packages' dist-info)
            settings["release"] = named
            given |= {"release"}
        out.append(
            Replica(
                target=target,
                kind="host",
                framework=server.framework,
                settings=settings,
                at=dict.fromkeys([*settings, "argv"], target),
                source="argv",
                given=given,
                version=named,
            )
        )
    return out
