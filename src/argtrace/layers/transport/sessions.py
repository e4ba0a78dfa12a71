"""Terminal multiplexers: ``tmux new``/``send-keys`` and ``screen``, which run a command in a session.

This module owns finding the command a tmux or screen invocation runs (its servers analysed as a
container's would be, with this shell's environment) and TP014: tmux runs it in the environment of the
tmux *server*, so variables exported by the script do not reach it when a server is already running.
"""

from __future__ import annotations

import re

from argtrace.layers.transport.command_names import _split_at
from argtrace.layers.transport.containers import _container_servers
from argtrace.layers.transport.context import TransportResult, _Context
from argtrace.layers.transport.words import _show_argv
from argtrace.model import Evidence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell import ScriptSource


_TMUX_NEW = {"new-session": "new-session", "new": "new-session", "new-window": "new-window",
             "neww": "new-window", "split-window": "split-window", "splitw": "split-window",
             "respawn-pane": "respawn-pane", "respawnp": "respawn-pane", "respawn-window": "respawn-window",
             "respawnw": "respawn-window"}  # fmt: skip


_TMUX_WITH_VALUE = set("cefFlnstxyp")


_SCREEN_WITH_VALUE = {"-S", "-c", "-e", "-h", "-p", "-T", "-t", "-Logfile", "-X"}


_ENTER_KEYS = {"Enter", "C-m", "KPEnter", "C-j"}


_EXPORT = re.compile(r"(?m)^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=")


def _session_manager(
    at: str, base: str, argv: list[str | None], ctx: _Context, result: TransportResult, source: ScriptSource
) -> None:
    """``tmux new -d 'CMD'``, ``tmux send-keys -t S 'CMD' Enter``, ``screen -dmS S CMD ARGS``: the command
    runs inside the session; with tmux, in the environment of the tmux *server* (TP014)."""
    from argtrace.rules import transport as R

    words = [w for w in argv]
    if any(w is None for w in words):
        return
    known = [w or "" for w in words]
    inner: list[str] | None = None
    how = base
    env_flags: list[str] = []
    if base == "tmux":
        i = 1
        while i < len(known) and known[i].startswith("-"):  # tmux's own options (-L socket, -f conf)
            i += 2 if known[i] in ("-L", "-S", "-f", "-T") else 1
        if i >= len(known):
            return
        sub = known[i]
        rest = known[i + 1 :]
        if sub in _TMUX_NEW:
            how = f"tmux {_TMUX_NEW[sub]}"
            j = 0
            while j < len(rest) and rest[j].startswith("-") and rest[j] != "--":
                letters = rest[j][1:]
                takes = next((k for k, c in enumerate(letters) if c in _TMUX_WITH_VALUE), None)
                if takes is not None:
                    value = letters[takes + 1 :] or (rest[j + 1] if j + 1 < len(rest) else "")
                    if letters[takes] == "e":
                        env_flags.append(value)
                    j += 1 if letters[takes + 1 :] else 2
                else:
                    j += 1
            if j < len(rest) and rest[j] == "--":
                j += 1
            command = rest[j:]
            if not command:
                return
            inner = ["sh", "-c", command[0]] if len(command) == 1 else command
        elif sub in ("send-keys", "send"):
            how = "tmux send-keys"
            j = 0
            while j < len(rest) and rest[j].startswith("-") and len(rest[j]) > 1:
                j += 2 if rest[j] in ("-t", "-N") else 1
            keys = rest[j:]
            if not keys or keys[-1] not in _ENTER_KEYS:
                return
            inner = ["sh", "-c", "".join(keys[:-1])]
        else:
            return
    else:
        i = 1
        while i < len(known) and known[i].startswith("-"):
            opt = known[i]
            if opt in _SCREEN_WITH_VALUE or (opt[1:2] and opt[-1] in "Sc" and len(opt) > 2 and opt[1] != "-"):
                i += 2
            else:
                i += 1
        inner = known[i:]
        if not inner:
            return
        how = "screen"
    if inner is None:
        return
    before = len(result.servers)
    _container_servers(at, inner, dict(ctx.env), None, how, result, shell_as_written=False)
    result.hops.append({"at": at, "via": how, "argv": inner})
    if base != "tmux" or len(result.servers) == before:
        return
    text = source.data.decode("utf-8", "replace")
    where = _split_at(at)
    upto = "\n".join(text.split("\n")[: where[1] - 1]) if where else text
    # an `export NAME=` line is the script's only when its shell ran an `export` there: the same text inside
    # a quoted string typed into the session is not (AgentFlow's serve_vllm.sh:
    # `CMD_START="...; export CUDA_VISIBLE_DEVICES=$GPU; ..."`, a correct launch)
    ran = {line for label, line in ctx.export_lines if label == source.label}
    lines = upto.split("\n")
    found = [name for number, line in enumerate(lines, 1) if number in ran for name in _EXPORT.findall(line)]
    exported = [n for n in dict.fromkeys(found) if n not in {e.split("=", 1)[0] for e in env_flags}]
    if exported:
        result.findings.append(
            R.TP014.finding(
                f"{how} runs the server in the environment of the tmux server, not of this shell: "
                "when a tmux "
                f"server is already running, {', '.join(exported)} exported here do not reach it",
                at=at,
                evidence=[Evidence("transport", at, _show_argv(known))],
            )
        )
