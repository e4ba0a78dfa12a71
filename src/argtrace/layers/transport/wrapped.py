"""Wrappers in front of a container launch: ``sudo docker run``, ``nohup timeout 2h podman run``.

This module owns finding the container program behind the command wrappers argtrace knows for a server
start (``frameworks/detect.py``'s ``_unwrap``: ``sudo``, ``env``, ``nohup``, ``nice``, ``timeout``,
``numactl``, ``taskset``, ``stdbuf``, ``setsid``, ``chrt``, ``ionice``, ``time``, ``srun``, ``exec``,
``command``; each wrapper's options are read with its own grammar there: sudo(8)'s, env(1)'s, and the
generated tables of frameworks/wrappers.py for the coreutils/util-linux ones), and what those wrappers do
to the environment of the docker client, which matters wherever docker copies a variable from its own
environment into the container (``-e NAME``, a bare ``NAME`` line of an ``--env-file``):

* ``sudo`` without ``-E``/``--preserve-env`` resets it (``env_reset``, sudoers(5) "Command environment"):
  a name the caller exported reaches docker only if sudoers keeps it (``env_keep``/``env_check``, read from
  Debian's real sudo: data/sudo_defaults.json), so ``HF_TOKEN=x sudo docker run -e HF_TOKEN`` passes
  nothing, and TP006 says so (basis ``assumed``: a machine's sudoers may differ);
* ``env -i``/``-u NAME`` (env(1)) clear or unset, ``env NAME=v`` / ``sudo NAME=v`` set (in the order
  written, as layers/shell/wrapenv.py applies them to a server's own environment);
* the others (``nohup``, ``timeout``, ``nice``, ``numactl``, ``srun`` with its default ``--export=ALL``...)
  hand the environment on unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from argtrace.layers.transport.command_names import _basename

# programs whose ``run`` argtrace reads with docker's grammar (podman and nerdctl document a
# docker-compatible CLI: podman-run(1), nerdctl's "Docker-compatible CLI" README)
CONTAINER_PROGRAMS = frozenset({"docker", "podman", "nvidia-docker", "nerdctl"})  # also in __init__.py

# a marker for "the caller's value of the name, whatever it is" while the wrappers are applied
_CALLER = "\0caller"


@dataclass
class Wrapped:
    """The wrappers in front of a carrier: their names and word positions, the ``NAME=value`` words among
    them, and where the carrier's own argv begins."""

    start: int  # index of the carrier's program word (``docker``)
    wrappers: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    assignments: list[tuple[int, str, str]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)

    def client_value(self, name: str, caller: object, absent: object) -> tuple[object, str | None]:
        """What the carrier's own environment holds for ``name`` after the wrappers, given the caller's
        value (``absent``: unset; ``None``: set to a value not known here); and the wrapper that removed
        a name the caller had, if one did."""
        from argtrace.layers.shell.wrapenv import EnvMap, env_ops, parse_sudo, sudo_environment

        env: EnvMap = {}
        if caller is not absent:
            env[name] = (caller if isinstance(caller, str) else None, None, _CALLER, None)
        events = sorted(
            [(p, 0, w) for p, w in zip(self.positions, self.wrappers, strict=False)]
            + [(p, 1, "=") for p, _n, _v in self.assignments]
        )
        assigned = {p: (n, v) for p, n, v in self.assignments}
        removed_by: str | None = None
        for p, _kind, what in events:
            had = name in env
            if what == "=":
                n, v = assigned[p]
                if n == name:
                    env[name] = (v, None, "wrapper", None)
            elif what == "env":
                env_ops(self.words, p + 1, env, None)
            elif what == "sudo":
                call = parse_sudo(self.words, p + 1)
                env = {
                    k: v
                    for k, v in sudo_environment(
                        env,
                        call,
                        self.words[call.command :],
                        None,
                        passwd=lambda _u: None,
                        is_file=lambda _p: False,
                    ).items()
                    if k == name
                }
            # sudo's own NAME=value words come after its options as "=" events (sudo(8): "Environment
            # variables to be set for the command may also be passed on the command line in the form of
            # VAR=value"), applied to the environment sudo built
            if had and name not in env:
                removed_by = what
            elif name in env:
                removed_by = None
        if name not in env:
            return absent, removed_by
        value = env[name][0]
        if env[name][2] == _CALLER:
            return caller, None
        return value, None


def find_wrapped_carrier(argv: Sequence[str | None]) -> Wrapped | None:
    """The wrappers in front of ``docker``/``podman``/``nerdctl`` in ``argv``, or ``None`` when ``argv``
    does not start with a wrapper or the wrapped command is no container program."""
    from argtrace.frameworks.detect import _unwrap

    words = [w or "" for w in argv]
    wrappers: list[str] = []
    positions: list[int] = []
    assignments: list[tuple[int, str, str]] = []
    i = _unwrap(words, 0, wrappers, assignments, positions)
    if i == 0 or i >= len(words) or argv[i] is None or _basename(words[i]) not in CONTAINER_PROGRAMS:
        return None
    return Wrapped(i, wrappers, positions, assignments, words)
