"""A command that looks like a server start but that argtrace does not follow (SH040).

``mpirun -np 2 python -m sglang.launch_server``, ``ray job submit -- vllm serve m``, ``docker exec c vllm
serve m``, ``kubectl exec pod -- ...``: each is said by name, as a warning, instead of "no server start found"
(SH019), which would read as "this script starts no server". (``python -m sglang_router.launch_server``,
``python -m sglang_router.launch_router`` and vLLM's demo ``python -m vllm.entrypoints.api_server`` are
parsed: frameworks/sglang_router.py, router_launch.py, vllm_demo.py.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.frameworks.detect import (
    _ASSIGN,
    _PYTHON,
    CLI_MODULES,
    _basename,
    _detect_python,
    detect_server,
    runs_itself,
    unwrap_command,
)

# Module entrypoints that start a server but whose command line argtrace does not parse
# (``python -m sglang_router.launch_router``, the router alone, is parsed: frameworks/router_launch.py)
UNANALYSED_MODULES: dict[str, str] = {}

_SERVER_TEXT = re.compile(
    r"\b(?:sglang\.launch_server|sglang_router\.launch_(?:server|router)|vllm\.entrypoints\.[\w.]+"
    r"|(?:vllm|sglang) serve)\b"
)

# commands that only mention a server (print, search, stop, install it) and carriers the transport layer
# follows itself (ssh, docker run, tmux, a shell's -c string, sudo)
_NOT_A_START = frozenset(
    {"echo", "printf", "grep", "egrep", "pgrep", "pkill", "kill", "killall", "ps", "cat", "tee", "sed", "awk"}
    | {"logger", "test", "[", "[[", "true", ":", "pip", "pip3", "curl", "wget", "which", "type", "hash"}
    | {"ssh", "autossh", "scp", "rsync", "tmux", "screen", "bash", "sh", "dash", "zsh", "sudo", "export"}
    | {"read", "local", "declare", "eval", "source", ".", "nvidia-smi", "tail", "head", "less", "jq"}
    # declaration builtins mark names, they run nothing (the shell layer's SH044 when a server command's
    # words are among them)
    | {"readonly", "typeset"}
    # an alias's definition starts nothing: its use does, followed by the shell layer (SH031 when bash
    # would not expand it)
    | {"alias", "unalias"}
)


# launchers named with their subcommand ("docker exec", "ray job", "hf jobs")
_SUBCOMMANDS = frozenset({"docker", "podman", "kubectl", "ray", "hf", "huggingface-cli", "modal", "sky"})


@deferred(frozen=True)
class Unfollowed:
    """A launcher or entry point argtrace does not follow, in front of (or instead of) a server start it
    can see: that server goes unchecked."""

    program: str  # the word argtrace does not follow ("mpirun", "docker exec", "python3 -m sglang_router...")
    start: str  # what looks like the server start ("python -m sglang.launch_server", "vllm serve")
    why: str  # what that program or entrypoint is ("" for a launcher in front of a start)

    @property
    def message(self) -> str:
        if self.why:
            return (
                f"`{self.program}` starts {self.why}, which argtrace does not parse: that server's "
                "arguments and environment are not checked"
            )
        return (
            f"`{self.program}` runs `{self.start}` here: argtrace does not follow `{self.program}`, so that "
            "server's arguments and environment are not checked"
        )


# the words of _NOT_A_START that runs_itself keeps (all but the wrappers, sudo): as the first word of a
# command, no other test is needed (issue 18: a big script's 6,000 `export` and `[` commands)
_PLAIN_NOT_A_START = frozenset(w for w in _NOT_A_START if runs_itself(w) and _basename(w) == w)


def unfollowed_start(argv: Sequence[str | None]) -> Unfollowed | None:
    """What in ``argv`` looks like a server start that argtrace does not follow, or ``None``."""
    if not argv or argv[0] in _PLAIN_NOT_A_START:
        return None  # the test below, true for such a word (no `/`, no wrapper, no assignment), in one lookup
    if runs_itself(argv[0] or "") and _basename(argv[0] or "") in _NOT_A_START:
        return None  # `export ...`, `[ ... ]`, `echo ...`: what the tests below end with, read at once
    texts = [w or "" for w in argv]
    if detect_server(texts) is not None:
        return None
    i = unwrap_command(texts)
    if i >= len(texts) or _ASSIGN.match(texts[i]):
        return None  # a NAME=VALUE word run as the program: nothing starts (SH041 says so)
    word = texts[i].rsplit("/", 1)[-1]
    # docker run and docker exec are followed by the transport layer (layers/transport/containers.py)
    docker_run = word in ("docker", "podman", "nvidia-docker", "nerdctl") and bool(
        {"run", "exec"} & set(texts[i + 1 : i + 3])
    )
    # sbatch --wrap=STRING is followed by the shell layer (layers/shell/invocation.py, sbatch_job)
    wrapped = word == "sbatch" and any(t == "--wrap" or t.startswith("--wrap=") for t in texts[i + 1 :])
    # gcloud run deploy (and `run services update`) is followed by the transport layer (gcloud_run.py)
    rest = [t for t in texts[i + 1 : i + 5] if t not in ("beta", "alpha")]
    cloud_run = word == "gcloud" and (
        rest[:2] == ["run", "deploy"] or rest[:3] == ["run", "services", "update"]
    )
    # kubectl exec POD -- COMMAND is followed by the transport layer (layers/transport/kube_exec.py)
    kube_exec = word in ("kubectl", "oc") and "exec" in texts[i + 1 :] and "--" in texts[i + 1 :]
    if word in _NOT_A_START or docker_run or wrapped or cloud_run or kube_exec:
        return None
    # python -m MODULE for a launcher argtrace has no parser for
    found = _detect_python(texts, i) if _PYTHON.match(texts[i]) else None  # python -O -u -m MODULE too
    if found is not None and found[1] in UNANALYSED_MODULES:
        mod = found[1]
        return Unfollowed(f"{texts[i]} -m {mod}", f"python -m {mod}", UNANALYSED_MODULES[mod])
    if found is not None and found[1] == "sglang_router.launch_router":
        return None  # the router alone, parsed by frameworks/router_launch.py
    if found is not None and found[1] in CLI_MODULES:
        return None  # the console's other subcommands (`bench serve`, a client; `chat`): no server starts
    # a launcher in front of a server start: mpirun ... python -m sglang.launch_server
    for k in range(i + 1, len(texts)):
        if detect_server(texts[k:]) is not None:
            sub = " ".join(texts[i + 1 : i + 2]) if word in _SUBCOMMANDS else ""
            program = f"{word} {sub}".strip()
            return Unfollowed(program, " ".join(texts[k : k + 3]), "")
    # the start inside one word: ray job submit --entrypoint "vllm serve m", mpirun ... "sh -c '...'"
    for t in texts[i + 1 :]:
        m = _SERVER_TEXT.search(t)
        if m and (" " in t or t == m.group(0)):
            sub = texts[i + 1] if word in _SUBCOMMANDS and i + 1 < len(texts) else ""
            return Unfollowed(f"{word} {sub}".strip(), m.group(0), "")
    return None
