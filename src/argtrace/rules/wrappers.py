"""Rules of wrappers, images and Kubernetes pods around the server (issue 17): SH040-SH049, TP040-TP049."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_HEAD = "#!/bin/bash\n"
_SERVER = "python3 -m sglang.launch_server --model-path /models/qwen"

SH040 = Rule(
    code="SH040",
    layer="shell",
    severity="warning",
    title="A server start argtrace does not follow",
    rationale=(
        "The command looks like it starts a server (`python -m sglang.launch_server`, `vllm serve`, "
        "`python -m sglang_router.launch_server`...) but runs it through a program or entrypoint argtrace "
        "does not read (`mpirun`, `ray job submit`, `docker exec`, `kubectl exec`, the SGLang router's "
        "launcher, vLLM's demo `api_server`): its arguments and environment are not checked. This is not "
        '"no server found": the server may well start, unchecked.'
    ),
    fix="Check the server command itself (`argtrace check -c '...'`), or start it directly in the script.",
    example=Example(
        files={"launch.sh": _HEAD + "mpirun -np 2 " + _SERVER + "\n"}, argv=("check", "launch.sh")
    ),
    correct=Example(files={"launch.sh": _HEAD + _SERVER + "\n"}, argv=("check", "launch.sh")),
)
