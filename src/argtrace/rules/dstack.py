"""Rules of dstack run configurations (``.dstack.yml``: services and tasks) as launch carriers
(TP089-TP091): what dstack does to the commands and environment between the file and the server.

The behaviour is dstack's own code: ``EnvSentinel.from_env`` (``src/dstack/_internal/core/models/envs.py``)
for an ``env:`` entry with no value, ``JobConfigurator._commands`` (``src/dstack/_internal/server/services/
jobs/configurators/base.py``) for what runs when ``commands:`` is missing and which shell runs them.
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

_HEAD = "type: service\nimage: vllm/vllm-openai:latest\nport: 8000\n"

TP089 = Rule(
    code="TP089",
    layer="transport",
    severity="error",
    title="A dstack `env:` entry without a value: `dstack apply` takes it from its own environment",
    rationale=(
        "An `env:` item written as a bare name (`- HF_TOKEN`) has no value in the file: dstack's CLI fills "
        "it from the environment `dstack apply` runs in, and refuses the run when the name is not set there "
        "(`ValueError: Environment variable HF_TOKEN is not set`, `EnvSentinel.from_env` in "
        "`dstack/_internal/core/models/envs.py`). Nothing is launched. That environment is the caller's, "
        "not known here, so with no `--env` at all the finding is a note (`info`, basis `assumed`); given "
        "`--env` without that name (the values `dstack apply` is run with), it is an error."
    ),
    fix="Export the variable before `dstack apply` (argtrace: `argtrace check --env HF_TOKEN=... "
    "serve.dstack.yml`), or write its value in the file (`- HF_TOKEN=...`, or a secret: "
    "`HF_TOKEN: ${{ secrets.HF_TOKEN }}`).",
    example=Example(
        files={"serve.dstack.yml": _HEAD + "env:\n  - HF_TOKEN\ncommands:\n  - vllm serve Qwen/Qwen3-0.6B\n"},
        argv=("check", "--no-resolve", "--env", "OTHER=1", "serve.dstack.yml"),
    ),
    correct=Example(
        files={
            "serve.dstack.yml": _HEAD + "env:\n  - HF_TOKEN=hf_x\ncommands:\n  - vllm serve Qwen/Qwen3-0.6B\n"
        },
        argv=("check", "--no-resolve", "serve.dstack.yml"),
    ),
)

TP090 = Rule(
    code="TP090",
    layer="transport",
    severity="info",
    title="A dstack run with `image:` and no `commands:` runs the image's own ENTRYPOINT/CMD, not read here",
    rationale=(
        "Without `commands:` (and without `entrypoint:`), dstack runs the image's own ENTRYPOINT and CMD, "
        "read from the registry (`JobConfigurator._commands`, `dstack/_internal/server/services/jobs/"
        "configurators/base.py`). argtrace does not pull images, so the server command is not known here."
    ),
    fix="Write the server command in `commands:`, or check the image's Dockerfile with argtrace.",
    example=Example(
        files={"serve.dstack.yml": _HEAD},
        argv=("check", "--no-resolve", "serve.dstack.yml"),
    ),
    correct=Example(
        files={"serve.dstack.yml": _HEAD + "commands:\n  - vllm serve Qwen/Qwen3-0.6B\n"},
        argv=("check", "--no-resolve", "serve.dstack.yml"),
    ),
)

TP091 = Rule(
    code="TP091",
    layer="transport",
    severity="warning",
    title="A dstack command starts with a bash builtin, but with `image:` dstack runs commands with /bin/sh",
    rationale=(
        'With `image:` and no `shell:`, dstack runs `commands:` as `/bin/sh -i -c "CMD1 && CMD2 && ..."` '
        "(`JobConfigurator._shell`, dstack/_internal/server/services/jobs/configurators/base.py; "
        "dstackai/dstack#2530). On Debian and Ubuntu images (vllm/vllm-openai, lmsysorg/sglang) /bin/sh is "
        "dash, which has no `source`, `pushd`, `popd`, `shopt`, `declare` or `[[` (dash(1) lists `.` only): "
        'the command fails with "sh: 1: source: not found" (status 127) and, the commands being joined '
        "with `&&`, none after it runs, so the server never starts. An image whose /bin/sh is bash runs it; "
        "argtrace does not read the image, so this rests on /bin/sh being dash."
    ),
    fix="Add `shell: bash` to the configuration, or write the POSIX form (`. .venv/bin/activate`).",
    example=Example(
        files={
            "serve.dstack.yml": _HEAD
            + "commands:\n  - source /opt/venv/bin/activate\n  - vllm serve Qwen/Qwen3-0.6B\n"
        },
        argv=("check", "--no-resolve", "serve.dstack.yml"),
    ),
    correct=Example(
        files={
            "serve.dstack.yml": _HEAD
            + "shell: bash\ncommands:\n  - source /opt/venv/bin/activate\n  - vllm serve Qwen/Qwen3-0.6B\n"
        },
        argv=("check", "--no-resolve", "serve.dstack.yml"),
    ),
)
