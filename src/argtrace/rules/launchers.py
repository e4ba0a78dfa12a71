"""Rules of Procfiles and Apptainer/Singularity definition files as launch carriers (TP101-TP102): what
honcho's and Apptainer's reading of the file does to the server's command (honcho 2.0.0 ``environ.py``;
``layers/transport/procfile.py``, ``layers/transport/apptainer.py``)."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_VLLM = "vllm serve Qwen/Qwen3-0.6B --port $PORT"

TP101 = Rule(
    code="TP101",
    layer="transport",
    severity="error",
    title="A Procfile names a process twice: honcho refuses it, so nothing starts",
    rationale=(
        "honcho reads every `NAME: COMMAND` line of the Procfile into one table and asserts each name is "
        "new (honcho 2.0.0 `environ.py`, `Procfile.add_process`): a second line with the same name stops "
        "`honcho start` with `process names must be unique within a Procfile`, before any process runs, "
        "the server included."
    ),
    fix="Give each process line its own name (`vllm:` and `vllm2:`), or delete the line you do not mean.",
    example=Example(
        files={"Procfile": f"web: {_VLLM}\nweb: python3 worker.py\n"},
        argv=("check", "--no-resolve", "Procfile"),
    ),
    correct=Example(
        files={"Procfile": f"web: {_VLLM}\nworker: python3 worker.py\n"},
        argv=("check", "--no-resolve", "Procfile"),
    ),
)

TP102 = Rule(
    code="TP102",
    layer="transport",
    severity="warning",
    title="A variable exported in `%post` does not reach the container's runscript",
    rationale=(
        "Apptainer runs a definition file's `%post` once, while it builds the image; its `export` lines "
        "end with that shell. At `apptainer run`, the runscript gets the host's environment, the base "
        'image\'s, `%environment` and `$APPTAINER_ENVIRONMENT` (Apptainer user guide, "Definition Files": '
        "%post, %environment). A variable the runscript reads that only `%post` exports is unset when the "
        "server starts."
    ),
    fix="Move the `export` to `%environment` (or append it to `$APPTAINER_ENVIRONMENT` in `%post`).",
    example=Example(
        files={
            "vllm.def": "Bootstrap: docker\nFrom: vllm/vllm-openai:v0.10.1\n\n%post\n    export "
            'MODEL=Qwen/Qwen3-0.6B\n\n%runscript\n    exec vllm serve "$MODEL" "$@"\n'
        },
        argv=("check", "--no-resolve", "vllm.def"),
    ),
    correct=Example(
        files={
            "vllm.def": "Bootstrap: docker\nFrom: vllm/vllm-openai:v0.10.1\n\n%environment\n    export "
            'MODEL=Qwen/Qwen3-0.6B\n\n%runscript\n    exec vllm serve "$MODEL" "$@"\n'
        },
        argv=("check", "--no-resolve", "vllm.def"),
    ),
)
