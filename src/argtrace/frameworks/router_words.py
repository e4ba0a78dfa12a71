"""Whether a command starts a router alone, and the words its parser reads (``router_argv``): the one test
every command of a check asks (servers_together.pd_findings_of, layers/shell/analysis.py), kept apart from
the routers' readers (router_launch.py, 27 KB of bytecode a check of a script without a router never calls;
imports34).
"""

from __future__ import annotations

from collections.abc import Sequence

MODULE = "sglang_router.launch_router"
VLLM_MODULE = "vllm_router.launch_router"  # PyPI vllm-router's console script target
STACK_MODULE = "vllm_router.app"  # production-stack's router (its console script's target)


def router_argv(argv: Sequence[str | None]) -> list[str | None] | None:
    """The words the router alone parses when ``argv`` starts it (``python -m sglang_router.launch_router``,
    ``python -m smg.launch_router``, ``smg launch``), else None."""
    head = (argv[0] or "").rsplit("/", 1)[-1] if argv else ""
    if head == "smg" and len(argv) > 1 and argv[1] == "launch":
        return list(argv[2:])
    if head == "vllm-router":
        return list(argv[1:])
    for i, word in enumerate(argv[:-1]):
        if word == "-m" and argv[i + 1] in (MODULE, "smg.launch_router", VLLM_MODULE, STACK_MODULE):
            head = (argv[0] or "").rsplit("/", 1)[-1] if argv else ""
            before = [(w or "").rsplit("/", 1)[-1] for w in argv[:i]]
            if any(w.startswith("python") for w in before) or head.startswith("python"):
                return list(argv[i + 2 :])
    return None
