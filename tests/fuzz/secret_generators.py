"""Fuzz cases for the forms a secret takes in a launch script that the other kinds do not plant (the probe
of session 15, docs/reliability.md "Campaign 15"), run through every command that prints the script's
text: ``check`` in every format, ``fix --unverified`` (its diff quotes the script's own lines) and ``lint``.

Forms: a value wrapped over backslash-continued lines (bare, in double quotes, in ``export NAME=``), a token
glued to a one-letter option (``curl -khf_...``), an HTTP header named secret (``-H "X-Api-Key: ..."``,
``api-key:``), a heredoc line, a quoted-in-pieces word, a ``user:pass@`` URL, an ``Authorization: Bearer``
header; and files that must not be opened: a FIFO or ``/dev/zero`` given as ``--baseline``, ``--log`` or
``--model-config``, and a Ray Serve config whose ``llm_configs`` names them. Each case's launch repeats a
flag (``--tp 2 ... --tp 4``) on the wrapped line so that ``fix`` edits exactly the line that holds the tail.
"""

from __future__ import annotations

import random

from tests.fuzz.generators import Case, new_secret

SERVERS = ["python3 -m sglang.launch_server --model-path m", "vllm serve m"]
FORMATS = ["text", "json", "sarif", "github", "gcc", "junit", "json-lines"]


def _wrapped(rnd: random.Random, secret: str) -> str:
    """The secret split at a random point by a backslash-newline, as a secret flag's value or a variable."""
    cut = rnd.randint(4, len(secret) - 4)
    head, tail = secret[:cut], secret[cut:]
    form = rnd.choice(["flag", "quoted", "export"])
    if form == "flag":
        return f"{rnd.choice(SERVERS)} --api-key {head}\\\n{tail} --tp 2 --tp 4\n"
    if form == "quoted":
        return f'{rnd.choice(SERVERS)} --api-key "{head}\\\n{tail}" --tp 2 --tp 4\n'
    return f'export HF_TOKEN={head}\\\n{tail}\n{rnd.choice(SERVERS)} --tp 2 --tp 4 --api-key "$HF_TOKEN"\n'


def _elsewhere(rnd: random.Random, secret: str) -> str:
    """A line before the launch that carries the secret in a form the shell passes on to another program."""
    token = secret if secret.startswith(("hf_", "sk-")) else "hf_" + secret
    glued = f"curl -s -k{token} http://h/v1/models\n"
    if len(token) < 23:  # hf_ and 20 characters: shorter is no token's shape, nothing marks it
        glued = f'curl -s -H "X-Api-Key: {secret}" http://h/v1/models\n'
    return rnd.choice(
        [
            glued,
            f'curl -s -H "X-Api-Key: {secret}" http://h/v1/models\n',
            f"curl -s -H 'api-key: {secret}' http://h/v1/models\n",
            f'wget --header="Authorization: Bearer {secret}" http://h/\n',
            f"git clone https://user:{secret}@example.com/r.git\n",
            f"cat > /tmp/env <<EOF\nDB_PASSWORD={secret}\nEOF\n",
            f"export OPENAI_API_KEY='{secret[:6]}'\"{secret[6:]}\"\n",
        ]
    )


def secrets_case(rnd: random.Random, case_id: str) -> Case:
    first, second = new_secret(rnd), new_secret(rnd)
    lines = ["#!/bin/bash\n", _elsewhere(rnd, second), _wrapped(rnd, first)]
    if rnd.random() < 0.3:
        lines.insert(1, "set -e\n" * rnd.randint(1, 3))
    files = {"launch.sh": "".join(lines).encode()}
    fifos: list[str] = []
    command = rnd.choice(["check", "check", "fix", "lint"])
    if command == "fix":
        argv = ["fix", "--no-resolve", "--unverified"]
        if rnd.random() < 0.5:
            argv += ["--format", "json"]
        argv.append("launch.sh")
    elif command == "lint":
        argv = ["lint", "--format", rnd.choice(FORMATS), "."]
    else:
        argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS), "launch.sh"]
    if rnd.random() < 0.25 and command == "check":
        fifos.append("pipe")
        where = rnd.choice(["pipe", "/dev/zero"])
        option = rnd.choice(["--baseline", "--log", "--model-config", "--write-baseline"])
        if option == "--write-baseline" and where == "/dev/zero":
            where = "pipe"
        argv[1:1] = [option, where]
    if rnd.random() < 0.15:
        fifos.append("pipe2")
        files["serve.yaml"] = (
            b"applications:\n- name: a\n  import_path: ray.serve.llm:build_openai_app\n"
            b"  args:\n    llm_configs: [./pipe2, /dev/zero]\n"
        )
        argv = ["check", "--no-resolve", "serve.yaml"]
    joined = "".join(v.decode() for v in files.values())
    planted = [s for s in (first, second) if s in joined or s[:8] in joined]
    return Case("secrets", case_id, files, argv, planted, [], fifos=fifos)
