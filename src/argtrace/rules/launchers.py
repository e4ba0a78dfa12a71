"""Rules of Procfiles and Apptainer/Singularity definition files as launch carriers (TP101-TP102): what
honcho's and Apptainer's reading of the file does to the server's command (honcho 2.0.0 ``environ.py``;
``layers/transport/procfile.py``, ``layers/transport/apptainer.py``); and of the frameworks' own
command-line tools as launchers (TP104: ``sglang``/``vllm`` without their ``serve`` subcommand,
``layers/shell/lost.py``)."""

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

TP104 = Rule(
    code="TP104",
    layer="transport",
    severity="error",
    title="The framework's command-line tool is given the server's flags without its `serve` subcommand",
    basis="framework-code",
    rationale=(
        "`sglang` and `vllm` are command-line tools with subcommands; `serve` is the one that starts the "
        "server. Their parsers read the first word that is not an option as the subcommand: SGLang's "
        '(`sglang/cli/main.py`: `add_subparsers(dest="subcommand", required=True)` and '
        '`parse_known_args`, 0.5.10.post1 and 0.5.23) stops with "argument subcommand: invalid choice" '
        'for a model or a flag\'s value there, or "the following arguments are required: subcommand"; '
        'vLLM\'s (`vllm/entrypoints/cli/main.py`: `add_subparsers(required=False, dest="subparser")` and '
        '`parse_args`, 0.33.0) stops with "argument subparser: invalid choice" or "unrecognized '
        'arguments". Either exits with status 2 before any server starts (vLLM Studio launched SGLang 0.5.8 '
        "this way: sybil-solutions/vllm-studio PR#331). SGLang releases before 0.5.5 have no `sglang serve` "
        "at all (no `sglang.cli` module: data/entrypoint_index.json)."
    ),
    fix="Insert `serve` after the tool's name (`sglang serve --model-path M`, `vllm serve M`); on SGLang "
    "releases before 0.5.5, `python -m sglang.launch_server --model-path M`.",
    example=Example(argv=("check", "--no-resolve", "-c", "sglang --model-path Qwen/Qwen3-8B --port 30000")),
    correct=Example(
        argv=("check", "--no-resolve", "-c", "sglang serve --model-path Qwen/Qwen3-8B --port 30000")
    ),
    exceptions="Only when the first word after the tool is a `--` option or a model-like word with a `/` "
    "(no subcommand has one): `vllm chat`, `vllm bench serve` and `sglang version` are commands of their "
    "own, and `--help`, `--version` and vLLM's `--omni` (handed to vllm-omni's CLI) are left alone. In a "
    "container's command only when the image's entrypoint is known (an image whose entrypoint is not known "
    "may take the words as its own arguments), and with no edit there.",
)
