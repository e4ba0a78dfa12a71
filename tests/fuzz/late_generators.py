"""Fuzz cases for the readers of session 29 the other kinds do not reach (docs/reliability.md "Session 30
(safe30)").

``containers``: a container's ``bash -c`` string known but for some values
(``layers/transport/containers.py``, ``holes.as_written``): ``docker run [sudo, --entrypoint bash,
podman] IMAGE bash -c "... $ip"``, ``docker exec C bash -c``, ``kubectl exec $POD -- bash -c`` with a pod
not known; ``printf`` with its options as bash
reads them (``-v VAR``, ``-vVAR``, ``--``, a subscript ``-v 'A[$(touch M)]'``, a format starting with ``-``,
holed values, ``holes.printf_holed``) whose output becomes the server's words; ``(( "$#" ))``. Hostile
shapes: the holed string doubled, 200 holes, 5,000 ``-e`` options, a container in a container's string,
``printf -v`` in a loop of 5,000 turns, widths of 10^9.

``includes``: compose ``include:`` (TP105, ``layers/transport/compose_include.py``): lists and mappings,
``path:`` lists, ``project_directory:``, ``env_file:``; the included file's ``.env`` holding the secret its
``command:`` interpolates; missing, FIFO, ``/dev/zero`` and directory paths, a cycle, the file itself, a chain
longer than the 32 files read, 2,000-20,000 entries (each with its env file), odd node types.

``logargv``: ``argtrace log``'s words read without argparse (``quick_argv.py``: options in every spelling,
repeated, glued, unknown, after ``--``) on a log whose argument lines carry a secret (a ``Namespace(...)``,
vLLM's ``non-default args: {...}``, ``ServerArgs(...)``, a ``set -x`` trace, an env dump); and ``why`` on
the texts of session 29's readers (environment messages before a traceback's frames, ``cannot import
name``), a secret in each.

Every planted secret keeps a label (a secret name before ``=``, ``--api-key``) or a token shape, and every
marker is a ``touch`` nothing may run.
"""

from __future__ import annotations

import random

from tests.fuzz.generators import Case
from tests.fuzz.reader_generators import FORMATS, _Plant

SERVERS = [
    "python3 -m sglang.launch_server --model-path m",
    "vllm serve m",
    "python3 -m vllm.entrypoints.openai.api_server --model m",
]
UNKNOWN = ["$(hostname -I)", "$(cat /etc/ip)", "`hostname`", "${SLURM_NODEID}", "$1", "$RANDOM"]
IMAGES = ["vllm/vllm-openai:v0.11.1", "lmsysorg/sglang:latest", "$IMAGE", "reg.local/x@sha256:" + "a" * 64]


def _secret_line(p: _Plant) -> tuple[str, str]:
    """A statement that sets a secret, and the words that carry it into the string."""
    key = p.secret()
    form = p.rnd.choice(["flag", "env", "quoted", "glued"])
    if form == "flag":
        return f"API_KEY={key}", "--api-key $API_KEY"
    if form == "env":
        return f"export HF_TOKEN={key}", "--api-key $HF_TOKEN"
    if form == "quoted":
        return f"API_KEY='{key}'", "--api-key '$API_KEY'"
    return f"API_KEY={key}", "--api-key=$API_KEY"


def _container(p: _Plant, inner: str) -> str:
    """A line that runs the double-quoted string ``inner`` in a container's shell."""
    r = p.rnd
    image = r.choice(IMAGES)
    env = r.choice(["", "-e HF_TOKEN ", "--env-file .env ", "-e A=1 " * r.choice([1, 50, 5000])])
    form = r.choice(["run", "sudo", "entrypoint", "podman", "exec", "kubectl", "nested"])
    if form == "run":
        return f'docker run --rm --gpus all {env}--ipc=host {image} bash -c "{inner}"'
    if form == "sudo":
        return f'sudo -E docker run --rm {env}{image} /bin/bash -lc "{inner}"'
    if form == "entrypoint":
        return f'docker run --entrypoint bash {env}{image} -c "{inner}"'
    if form == "podman":
        return f'podman run --rm --device nvidia.com/gpu=all --entrypoint /bin/bash {image} -c "{inner}"'
    if form == "exec":
        return f'docker exec {r.choice(["-it ", "-e A=1 ", ""])}{r.choice(["srv", "$C"])} bash -c "{inner}"'
    if form == "kubectl":
        pod = r.choice(["$POD", "$(kubectl get pod -l app=llm -o name)", "${PODS[0]}", "pod/$NAME-0"])
        return f'kubectl exec -it {pod} {r.choice(["", "-n llm ", "-c srv "])}-- bash -c "{inner}"'
    # a container whose string runs another container's shell
    esc = inner.replace("\\", "\\\\").replace('"', '\\"')
    return f'docker run {image} bash -c "docker exec srv bash -c \\"{esc}\\""'


def _holed_container(p: _Plant) -> list[str]:
    r = p.rnd
    setk, words = _secret_line(p)
    mark = p.marker("ctr")
    quoted = r.choice(["$ip", "'$ip'", '\\"$ip\\"', "${ip}", "${ip:-0.0.0.0}", "${ip//./-}", "$ip:5000"])
    pre = r.choice(["", f"touch {mark}; ", f"$(touch {mark}) ", f"cd /tmp && touch {mark} && "])
    inner = f"{pre}{r.choice(SERVERS)} --host {quoted} --port ${{PORT:-8000}} {words}"
    shape = r.choice(["plain", "plain", "double", "many", "loop", "var"])
    lines = [setk, f"ip={r.choice(UNKNOWN)}", "PORT=8000"]
    if shape == "double":  # the holed string doubled past its 64 KiB bound
        lines += [f'S="{inner}"'] + ['S="$S $S"'] * r.choice([6, 12, 40])
        inner = "$S"
    elif shape == "many":  # more distinct holes than the 64 kept
        n = r.choice([63, 65, 200])
        lines += [f"h{i}={r.choice(UNKNOWN)}" for i in range(n)]
        inner = inner + " " + " ".join(f"--x{i} $h{i}" for i in range(n))
    elif shape == "loop":
        lines += ["S=''", f'for i in $(seq {r.choice([10, 5000])}); do S="$S --host $ip"; done']
        inner = inner + " $S"
    elif shape == "var":
        lines.append(f'CMD="{inner}"')
        inner = "$CMD"
    return [*lines, _container(p, inner)]


def _printf_line(p: _Plant) -> list[str]:
    """printf's options as bash reads them, its output the server's words; a secret among its values."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("printf")
    lines = [f"API_KEY={key}", f"ip={r.choice(UNKNOWN)}"]
    subscript = "-v 'A[$(touch " + mark + ")]'"  # bash expands a subscript: nothing here may run it
    var = r.choice(["-v ARGS", "-vARGS", "-v ARGS --", "-vARGS --", subscript, '-v "$V"'])
    fmt = r.choice(
        [
            "'--host %s --api-key %s'",
            '"--host %s --api-key=%s"',
            "'%s %s'",
            "'--host %q --api-key %q'",
            "'--host %999999999s --api-key %s'",
            "'--host %*d --api-key %s' 999999999",
            "'-%s %s'",  # a format starting with '-': bash refuses it without --
            "'%s'" * r.choice([1, 300]),
        ]
    )
    vals = r.choice(
        ['"$ip" "$API_KEY"', '"$ip" "--api-key=$API_KEY"', '"$ip" $API_KEY', '"$API_KEY" "$ip" "$ip"']
    )
    if "A[" in var:
        lines.append("declare -a A")
    if r.random() < 0.2:  # in a loop: the holed text grows each turn
        lines += [
            "ARGS=''",
            f'for i in $(seq {r.choice([10, 5000])}); do printf -v ARGS \'%s --host %s\' "$ARGS" "$ip"; done',
        ]
    lines.append(f"printf {var} {fmt} {vals}")
    if r.random() < 0.3:
        argc = ['(( "$#" )) && shift', 'if (( "$#" > 0 )); then ip=$1; fi', '(( "$#" )) || exit 1']
        lines.append(r.choice(argc))
    use = r.choice(
        [
            f"{r.choice(SERVERS)} $ARGS",
            f'{r.choice(SERVERS)} "${{A[@]}}" $ARGS',
            f'eval "{r.choice(SERVERS)} $ARGS"',
            f'docker run {r.choice(IMAGES)} bash -c "touch {mark}; {r.choice(SERVERS)} $ARGS"',
        ]
    )
    return [*lines, use]


def containers_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    lines = ["#!/bin/bash", "set -e"]
    for _ in range(rnd.choice([1, 1, 2])):
        lines += _holed_container(p) if rnd.random() < 0.6 else _printf_line(p)
    p.files["run.sh"] = ("\n".join(lines) + "\n").encode()
    if rnd.random() < 0.3:
        p.files[".env"] = f"HF_TOKEN={p.secret()}\n".encode()
    argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS), "run.sh"]
    if rnd.random() < 0.2:
        argv = ["lint", "run.sh"]
    joined = b"".join(p.files.values()).decode("utf-8", "replace")
    return Case("containers", case_id, p.files, argv, [s for s in p.secrets if s in joined], p.markers)


# ---------------------------------------------------------------- compose include


def _service(p: _Plant, name: str) -> str:
    """An included compose file whose command takes its secret from the project's .env."""
    r = p.rnd
    mark = p.marker(f"inc{name}")
    server = r.choice(["vllm serve m", "python3 -m sglang.launch_server --model-path m"])
    cmd = r.choice(
        [
            f"command: {server} --api-key ${{API_KEY}}",
            f'command: ["bash", "-c", "touch {mark}; {server} --api-key $${{API_KEY}}"]',
            f"command: >\n      {server}\n      --api-key ${{API_KEY:-none}}",
        ]
    )
    return (
        f"services:\n  {name}:\n    image: {r.choice(IMAGES[:2])}\n    {cmd}\n"
        f"    environment:\n      - HF_TOKEN=${{HF_TOKEN}}\n"
        f'    healthcheck:\n      test: ["CMD-SHELL", "touch {mark}h"]\n'
    )


def includes_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    r = rnd
    fifos: list[str] = []
    p.markers.append(f"MARK_inca_{case_id}h")
    p.files["a/compose-vllm.yml"] = _service(p, "a").encode()
    p.files["a/.env"] = f"API_KEY={p.secret()}\nHF_TOKEN={p.secret()}\n".encode()
    entries = ["  - a/compose-vllm.yml"]
    shape = r.choice(["plain", "forms", "missing", "cycle", "chain", "many", "odd", "files"])
    if shape == "forms":
        p.files["b/compose.yml"] = _service(p, "b").encode()
        p.markers.append(f"MARK_incb_{case_id}h")
        p.files["secrets.env"] = f"API_KEY={p.secret()}\n".encode()
        entries = [
            "  - path:\n      - a/compose-vllm.yml\n      - b/compose.yml\n    project_directory: .\n"
            "    env_file: secrets.env",
            "  - path: b/compose.yml\n    env_file: ./secrets.env",
        ]
    elif shape == "missing":
        gone = r.choice(["compose-gone.yml", "x/compose.yaml", "../../compose.yml", "~/compose.yml"])
        entries += [f"  - {gone}"]
        entries += ["  - oci://docker.io/x/compose:latest", "  - git@github.com:x/y.git"]
    elif shape == "cycle":
        p.files["a/compose-vllm.yml"] += b"include:\n  - ../compose.yaml\n  - compose-vllm.yml\n"
        entries.append("  - compose.yaml")
    elif shape == "chain":  # longer than the 32 files read
        n = r.choice([31, 40, 400])
        for i in range(n):
            p.files[f"c/compose-{i}.yml"] = f"include:\n  - compose-{i + 1}.yml\n".encode()
        entries.append("  - c/compose-0.yml")
    elif shape == "many":  # entries with their env files, each read for the entry
        n = r.choice([2000, 20000])
        p.files["big.env"] = ("".join(f"V{i}=${{V{i - 1}}}\n" for i in range(r.choice([10, 20000])))).encode()
        entries += ["  - path: a/compose-vllm.yml\n    env_file: big.env" for _ in range(n)]
        entries += [f"  - path: m{i}/compose.yml" for i in range(r.choice([10, n]))]
    elif shape == "odd":
        entries += r.sample(
            [
                "  - 5",
                "  - null",
                "  - []",
                "  - {}",
                "  - path: null",
                "  - path: [1, null, {a: b}]",
                "  - path: a/compose-vllm.yml\n    project_directory: /",
                "  - path: a/compose-vllm.yml\n    env_file: [x, y]",
                "  - path: a/compose-vllm.yml\n    project_directory: " + "../" * 300,
                "  - '" + "x" * 100000 + "/compose.yml'",
            ],
            r.choice([1, 3, 6]),
        )
    elif shape == "files":  # what a path may name
        fifos.append("fifo/compose.yml")
        p.files["d/compose.yml/README"] = b"a directory\n"
        entries += ["  - fifo/compose.yml", "  - d/compose.yml", "  - /dev/zero", "  - /dev/stdin"]
        odd_env = r.choice(["fifo/compose.yml", "/dev/zero"])
        entries += [f"  - path: a/compose-vllm.yml\n    env_file: {odd_env}"]
    top = "include:\n" + "\n".join(entries) + "\n"
    if r.random() < 0.5:
        top += "services:\n  proxy:\n    image: nginx\n    environment:\n      - API_KEY=${API_KEY}\n"
    p.files["compose.yaml"] = top.encode()
    if r.random() < 0.3:
        p.files[".env"] = f"API_KEY={p.secret()}\n".encode()
    argv = ["check", "--no-resolve", "--format", r.choice(FORMATS), "compose.yaml"]
    joined = b"".join(p.files.values()).decode("utf-8", "replace")
    planted = [s for s in p.secrets if s in joined]
    return Case("includes", case_id, p.files, argv, planted, p.markers, fifos=fifos)


# ---------------------------------------------------------------- log's argv and why's readers


def _argv_line(p: _Plant) -> str:
    key = p.secret()
    return p.rnd.choice(
        [
            f"INFO 12-05 04:00:00 api_server.py:1 args: Namespace(model='m', api_key='{key}', port=8000)",
            f"INFO 12-05 04:00:00 [utils.py:253] non-default args: {{'model': 'm', 'api_key': '{key}'}}",
            f"[2026-12-05 04:00:00] server_args=ServerArgs(model_path='m', api_key='{key}', tp_size=2)",
            f"+ exec vllm serve m --api-key {key} --port 8000",
            f"HF_TOKEN={key}",
            f"Command line: python3 -m sglang.launch_server --model-path m --api-key={key}",
            f"(APIServer pid=7) INFO args: Namespace(model='m', api_key=['{key}'])",
        ]
    )


_LOG_TAIL = [
    "INFO 12-05 04:00:01 [gpu_model_runner.py:1] Loading model weights took 14.9 GiB",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.1 GiB",
    "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be "
    "stored in KV cache (9000).",
    "RuntimeError: Engine core initialization failed. See root cause above.",
]


def _why_text(p: _Plant) -> str:
    """A pasted error: environment messages (pip's conflicts, an unknown UID, ROCm's memory fault) before a
    traceback's frames, and a ``cannot import name`` line, each with a secret beside it."""
    r = p.rnd
    key = p.secret()
    env = r.choice(
        [
            "ERROR: pip's dependency resolver does not currently take into account all the packages that are "
            "installed. vllm 0.9.2 requires torch==2.7.0, but you have torch 2.6.0 which is incompatible.",
            "getpwuid(): uid not found: 1000",
            "Memory access fault by GPU node-2 (Agent handle: 0x5) on address 0x7f. Reason: Page not "
            "present.",
            "FlashInfer version mismatch: installed 0.2.5, expected 0.2.6",
        ]
    )
    cred = r.choice(
        [
            f"HF_TOKEN={key}",
            f"Authorization: Bearer {key}",
            f"pip install --index-url https://user:{key}@pypi.example/simple vllm",
            f"vllm serve m --api-key {key}",
        ]
    )
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/vllm/entrypoints/cli/main.py", line 10, in <module>\n'
        "    from vllm.model_executor.models.llama import LlamaForCausalLM\n"
    )
    last = r.choice(
        [
            "ImportError: cannot import name 'LlamaFlashAttention2' from "
            "'transformers.models.llama.modeling_llama' (/usr/lib/python3/site-packages/transformers/x.py)",
            f"ImportError: cannot import name '{'X' * r.choice([5, 5000])}' from 'vllm' (unknown location)",
            "ImportError: cannot import name 'a' from partially initialized module 'b'",
            f"ImportError: cannot import name 'x' from 'https://user:{key}@host/pkg'",
        ]
    )
    lines = [env, cred, frames + last]
    if r.random() < 0.3:
        lines = [env] * r.choice([100, 5000]) + lines
    if r.random() < 0.2:
        lines.insert(0, "(" * r.choice([1000, 50000]))
    return "\n".join(lines) + "\n"


def logargv_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    r = rnd
    fifos: list[str] = []
    if r.random() < 0.35:
        text = _why_text(p)
        p.files["err.txt"] = text.encode()
        shape = r.choice(["arg", "log", "all"])
        fmt = r.choice(["text", "json", "text"])
        if shape == "arg":
            argv = ["why", "--format", fmt, text[:200_000]]
        elif shape == "log":
            argv = ["why", "--format", fmt, "--log", "err.txt"]
        else:
            argv = ["why", "--all", "--format", fmt, "--log", "err.txt"]
    else:
        lines = [_argv_line(p) for _ in range(r.choice([1, 2, 3]))]
        lines += r.sample(_LOG_TAIL, r.choice([1, 2, 4]))
        if r.random() < 0.2:
            lines = lines * r.choice([100, 5000])
        if r.random() < 0.2:
            lines.insert(0, "X" * r.choice([10**4, 10**6]))
        name = r.choice(["server.log", "-x.log", "--format", "l og.log", "log.txt"])
        p.files[name] = ("\n".join(lines) + "\n").encode()
        fmt = r.choice(["text", "json", "sarif", "github", "gcc", "junit", "json-lines", "html", "bogus", ""])
        where = name if not name.startswith("-") else r.choice(["./" + name, name])
        forms = [
            ["log", where],
            ["log", "--format", fmt, where],
            ["log", f"--format={fmt}", where],
            ["log", where, "--format", fmt],
            ["log", "--format", "json", "--format", fmt, where],
            ["log", "--", where],
            ["log", "--fail-on", r.choice(["never", "warning", "error", "x"]), where],
            ["log", "--verbose", "--show-config", where],
            ["log", "--form", fmt, where],
            ["log", "--format", where],
            ["log", where, where],
            ["log", "--launch", r.choice(["1", "-1", "0", "99999999999999999999", "x"]), where],
            ["log", "--baseline", r.choice(["fifo", "/dev/zero", "nope.json"]), where],
            ["--host", "", "log", where],
            ["log", "--f\u00f6rmat", "json", where],
        ]
        argv = r.choice(forms)
        if "fifo" in argv:
            fifos.append("fifo")
    joined = b"".join(p.files.values()).decode("utf-8", "replace") + " ".join(argv)
    planted = [s for s in p.secrets if s in joined]
    return Case("logargv", case_id, p.files, argv, planted, p.markers, fifos=fifos)
