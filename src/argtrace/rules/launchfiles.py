"""Rules of Dockerfiles, GitHub Actions workflows and Podman quadlets as launch carriers (TP085-TP088):
what Docker's ``ENTRYPOINT``/``CMD``/``ARG`` rules and a workflow's expressions do to a server's words."""

from __future__ import annotations

from argtrace.rules import Example, Rule

_FROM = "FROM vllm/vllm-openai:v0.11.0\n"
_SGLANG = "FROM lmsysorg/sglang:v0.5.5\n"

TP085 = Rule(
    code="TP085",
    layer="transport",
    severity="error",
    title="A shell-form ENTRYPOINT ignores CMD and the words after the image in `docker run`",
    rationale=(
        "Docker runs a shell-form `ENTRYPOINT TEXT` as `/bin/sh -c TEXT` and appends `CMD` (or the words "
        "given after the image in `docker run`) to that argv, where they become `$0`, `$1`, ... of the "
        'script: "The shell form of ENTRYPOINT prevents any CMD command line arguments from being used" '
        '(Dockerfile reference, ENTRYPOINT; table "Understand how CMD and ENTRYPOINT interact"). The flags '
        'written in `CMD` never reach the server unless the text reads them with `"$@"`.'
    ),
    fix=(
        'Write the ENTRYPOINT in exec form (`ENTRYPOINT ["vllm", "serve"]`) so CMD is appended, or end the '
        'shell text with `"$@"` and start `CMD` with a word for `$0`.'
    ),
    example=Example(
        files={
            "Dockerfile": _FROM + 'ENTRYPOINT vllm serve Qwen/Qwen3-8B\nCMD ["--max-model-len", "8192"]\n'
        },
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
    correct=Example(
        files={
            "Dockerfile": _FROM
            + 'ENTRYPOINT ["vllm", "serve", "Qwen/Qwen3-8B"]\nCMD ["--max-model-len", "8192"]\n'
        },
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
)

TP086 = Rule(
    code="TP086",
    layer="transport",
    severity="error",
    title="A shell-form CMD or ENTRYPOINT reads a variable the Dockerfile sets only with ARG",
    rationale=(
        '`ARG` values exist while the image is built: "ARG variables are not persisted into the built '
        'image as ENV variables are" (Dockerfile reference, ARG). A shell-form `CMD`/`ENTRYPOINT` is '
        "expanded by the container's shell when the container starts, from the image's `ENV` and the "
        "run's `-e`, so `$MODEL` of an `ARG MODEL=...` is empty there: the flag before it loses its value "
        "(or takes the next flag as one)."
    ),
    fix="Keep the value in the image: `ARG MODEL=...` then `ENV MODEL=${MODEL}`.",
    example=Example(
        files={
            "Dockerfile": _SGLANG
            + "ARG MODEL=Qwen/Qwen3-8B\n"
            + "CMD python3 -m sglang.launch_server --model-path $MODEL --port 30000\n"
        },
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
    correct=Example(
        files={
            "Dockerfile": _SGLANG
            + "ARG MODEL=Qwen/Qwen3-8B\nENV MODEL=${MODEL}\n"
            + "CMD python3 -m sglang.launch_server --model-path $MODEL --port 30000\n"
        },
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
)

TP087 = Rule(
    code="TP087",
    layer="transport",
    severity="info",
    title="A GitHub Actions expression `${{ ... }}` is filled in by the runner, not known here",
    rationale=(
        "GitHub Actions evaluates every `${{ <expression> }}` of a step's `run:` and `env:` before the shell "
        'sees the script ("Expressions", GitHub Actions docs): the text of the result replaces the '
        "expression. Secrets, matrix values, inputs and the `github` context are the workflow run's, so "
        "argtrace reads each such value as unknown and says where it is used; findings about the words "
        "made from it rest on that."
    ),
    fix=(
        "Nothing to fix in the workflow; to check one run's values, give them with `--env NAME=VALUE` for "
        "an `env:` entry, or check the step's command with the values written in."
    ),
    example=Example(
        files={
            "serve.yml": "on: push\njobs:\n  serve:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: vllm serve ${{ matrix.model }} --port 8000\n"
        },
        argv=("check", "--no-resolve", "serve.yml"),
    ),
    correct=Example(
        files={
            "serve.yml": "on: push\njobs:\n  serve:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: vllm serve Qwen/Qwen3-0.6B --port 8000\n"
        },
        argv=("check", "--no-resolve", "serve.yml"),
    ),
)

TP088 = Rule(
    code="TP088",
    layer="transport",
    severity="error",
    title="A Dockerfile's RUN starts the server while the image is built, not when the container starts",
    rationale=(
        '"The RUN instruction will execute any commands to create a new layer on top of the current image" '
        "(Dockerfile reference, RUN): it runs during `docker build`, on the builder, usually without GPUs, "
        "and a server there either fails the build or keeps it waiting for ever. The container started "
        "from the image later runs the image's `ENTRYPOINT`/`CMD` (or the base image's), not that command: "
        "every flag written on the RUN line never reaches a server."
    ),
    fix='Start the server with `CMD ["vllm", "serve", ...]` or `ENTRYPOINT`; keep `RUN` for installing.',
    example=Example(
        files={"Dockerfile": "FROM python:3.11\nRUN pip install vllm\nRUN vllm serve Qwen/Qwen3-0.6B\n"},
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
    correct=Example(
        files={
            "Dockerfile": 'FROM python:3.11\nRUN pip install vllm\nCMD ["vllm", "serve", "Qwen/Qwen3-0.6B"]\n'
        },
        argv=("check", "--no-resolve", "Dockerfile"),
    ),
)
