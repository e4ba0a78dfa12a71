"""The ssh client's command line and the session it opens on the node.

This module owns :func:`parse_ssh` (OpenSSH's own option parsing: destination, port, user, ``-o``
options and the words of the remote command), the host name in a destination, and the environment sshd
gives a non-interactive command before any rc file runs (``SSHD_PATH``, ``HOME``, ``USER``). What the
node then does with the command is :mod:`.ssh`'s; uploads use the same session environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The environment sshd gives a non-interactive command before the login shell's rc files run.
SSHD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


_SSH_OPTS_WITH_VALUE = set("BbcDEeFIiJLlmOoPpQRSWw")


@dataclass(frozen=True)
class SshCall:
    """An ``ssh`` command line read as ssh reads it: the destination, port, user and options, and the
    remote command's words."""

    destination: str
    port: str | None
    user: str | None
    options: tuple[str, ...]
    remote: tuple[str | None, ...]  # the words ssh joins with spaces
    remote_start: int  # argv index of the first remote word


def parse_ssh(argv: Sequence[str | None]) -> SshCall | None:
    """ssh's own option parsing: the destination and the words of the remote command.

    Like OpenSSH, options are also accepted right after the destination (``ssh gpu1 -p 2222 cmd``): the
    command starts at the first word after the destination that is not an option, or after ``--``.
    """
    i = 1
    port = user = None
    options: list[str] = []
    dest: str | None = None
    terminated = False
    while i < len(argv):
        w = argv[i]
        if w is None and dest is not None and not terminated:
            break  # the remote command starts with a word not known here (`ssh HOST "... $ip:5000"`)
        if w is None:
            return None
        if not terminated and w == "--":
            terminated = True
            i += 1
            if dest is not None:
                break
            continue
        if terminated or not w.startswith("-") or w == "-":
            if dest is None:
                dest = w
                i += 1
                if terminated:
                    break
                continue
            break
        j = 1
        while j < len(w):
            letter = w[j]
            if letter in _SSH_OPTS_WITH_VALUE:
                value = w[j + 1 :] if j + 1 < len(w) else (argv[i + 1] if i + 1 < len(argv) else None)
                if j + 1 >= len(w):
                    i += 1
                if letter == "p":
                    port = value
                elif letter == "l":
                    user = value
                elif letter == "o" and value:
                    options.append(value)
                break
            j += 1
        i += 1
    if dest is None:
        return None
    return SshCall(dest, port, user, tuple(options), tuple(argv[i:]), i)


def _host_of(dest: str) -> str:
    host = dest.rsplit("@", 1)[-1]
    if host.startswith("ssh://"):
        host = host[len("ssh://") :]
    return host


@dataclass(frozen=True)
class NodeSession:
    """The environment sshd gives the remote command: what is known of it, and the variables it sets to
    values argtrace cannot know here (name -> why), with the directory the command starts in (HOME)."""

    env: dict[str, str]
    unknown: dict[str, str]
    cwd: str | None


def _remote_env(call: SshCall) -> NodeSession:
    """sshd sets USER/LOGNAME to the login user and HOME to that user's home directory in the node's passwd
    (OpenSSH session.c do_setup_env), and starts the command there. Without a user in the command line the
    login name is ssh's own default (the local user name, or a ``User`` line in ~/.ssh/config): not known
    here; and only root's home is the same on every node (``/root``)."""
    user = call.user or (call.destination.rsplit("@", 1)[0] if "@" in call.destination else None)
    env = {"PATH": SSHD_PATH, "SHELL": "/bin/bash"}
    unknown: dict[str, str] = {}
    if user is None:
        why = f"the login user of `ssh {call.destination}` (no user is given: ssh's default for the node)"
        unknown.update(USER=why, LOGNAME=why, HOME=f"the home directory of {why}")
        return NodeSession(env, unknown, None)
    env.update(USER=user, LOGNAME=user)
    if user == "root":
        env["HOME"] = "/root"
        return NodeSession(env, unknown, "/root")
    unknown["HOME"] = f"the home directory of {user} in the node's passwd"
    return NodeSession(env, unknown, None)
