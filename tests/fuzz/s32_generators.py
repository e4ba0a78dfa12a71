"""Fuzz cases for what session 32 added that the other kinds do not reach (docs/reliability.md "Session 32
(safe33)").

``gpus``: ``--gpu`` describing a card as nvidia-smi prints it (``gpus.described``: ``NAME, 16376 MiB, 8.9x2``)
through ``check`` and ``mem`` in every format: a name holding a secret, control characters, bidi and
combining marks, commas, 128 KiB of spaces or of one word around the line, 7-digit memories, 5-digit and
5,000-digit counts, a capability of ``99.9``, the line cut short.

``late32``: launch scripts with the readers of session 32: a redirection's target on the next line, ``>
>(tee ...)`` (a marker inside), Markdown placeholders (``<target-model-path>``), ``docker run IMAGE:${TAG}``,
``docker exec``/``kubectl exec`` strings with their own variables, SGLang PD decode servers with a
speculative algorithm (RS080), and Python launchers that run ``subprocess.run(shlex.split(cmd))``; beside
them shapes for ``bash -n`` (started through ``os.posix_spawn``, ``layers/shell/syntax.py``): command
substitutions nested past bash's stack (bash itself crashes), 20,000 unterminated here-documents, NUL bytes,
a 2-8 MB line. A secret in each value these readers compute, and a marker in each string nothing may run.
"""

from __future__ import annotations

import json
import random

from tests.fuzz.generators import Case
from tests.fuzz.reader_generators import FORMATS, _Plant

# a model's config.json after tests/data/real_cases_mem32/models/gemma-3-12b-it (the fields mem reads)
_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 3840,
    "intermediate_size": 15360,
    "num_attention_heads": 16,
    "num_hidden_layers": 48,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}


def _token(p: _Plant) -> str:
    """A secret of a token's shape: a GPU's name has no label a secret could be known by (``pw...`` there is
    a name like any other), so only its shape can tell it."""
    while True:
        s = p.secret()
        if s.startswith(("hf_", "sk-")):
            return s
        p.secrets.remove(s)


def _gpu_line(p: _Plant) -> str:
    """A ``--gpu`` value: nvidia-smi's line, or a hostile one near it."""
    r = p.rnd
    name = r.choice(
        [
            "NVIDIA GeForce RTX 4070 Ti SUPER",
            "",
            _token(p),
            f"NVIDIA {_token(p)} GPU",
            "NVIDIA \x1b[2J\x07 Ge\u009bForce",  # control characters (C0 and C1) in the name
            "NVIDIA \u202eRTX\u202c \u0301\u0301 \uff2e\uff36",  # bidi override, combining marks, fullwidth
            "A, B",  # a comma in the name
            "x" * r.choice([300, 5000]),
        ]
    )
    # mostly a line argtrace reads (so the report that quotes the name is made), then the odd ones
    mib = r.choice(["16376", "16376", "81559", "24564", "9999999", "1", "0", "99999999", "1.5"])
    cc = r.choice(["8.9", "9.0", "12.0", "8.6", "12.0", "99.9", "8", "8.99", "x"])
    count = r.choice(["", "", "x2", "x8", " x 4", "x99999", "x0", "x" + "9" * 5000])
    if r.random() < 0.5:  # a line argtrace reads: only the name (and blanks around) hostile
        mib, cc, count = (
            r.choice(["16376", "81559", "9999999"]),
            r.choice(["8.9", "12.0"]),
            r.choice(["", "x2"]),
        )
        name = name[:200]
    line = f"{name}, {mib} MiB, {cc}{count}" if name else f"{mib} MiB, {cc}{count}"
    shape = r.choice(["plain", "plain", "plain", "spaces", "word", "cut", "tabs"])
    if shape == "spaces":  # the leading blank run that made the old pattern quadratic
        return " " * r.choice([1000, 20000, 120000]) + line + " " * r.choice([0, 100])
    if shape == "word":  # (a word apart: a token glued to other letters has no shape left)
        return "a" * r.choice([1000, 120000]) + " " + line
    if shape == "cut":
        return line[: r.randint(1, max(1, len(line) - 1))]
    if shape == "tabs":
        return line.replace(" ", "\t")
    return line


def gpus_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    r = rnd
    gpu = _gpu_line(p)
    key = p.secret()
    fmt = r.choice(FORMATS)
    p.files["model/config.json"] = json.dumps(_CONFIG).encode()
    if r.random() < 0.5:
        mark = p.marker("gpu")
        server = r.choice(
            [
                "python3 -m sglang.launch_server --model-path model --mem-fraction-static 0.9",
                "vllm serve model --gpu-memory-utilization 0.95 --max-model-len 131072",
            ]
        )
        p.files["run.sh"] = (
            f"#!/bin/bash\nexport HF_TOKEN={key}\nX=$(touch {mark})\n{server} --api-key {p.secret()}\n"
        ).encode()
        argv = ["check", "--no-resolve", "--format", fmt, "--gpu", gpu, "--model-config", "model", "run.sh"]
    else:
        argv = ["mem", "--format", fmt, "--model-config", "model", "--gpu", gpu]
        argv += r.choice(
            [[], ["--", "--quantization", "fp8"], ["--framework", "vllm", "--", "--api-key", key]]
        )
    joined = b"".join(p.files.values()).decode("utf-8", "replace") + " ".join(argv)
    return Case("gpus", case_id, p.files, argv, [s for s in p.secrets if s in joined], p.markers)


# ---------------------------------------------------------------- session 32's shell and Python readers


def _reader_lines(p: _Plant) -> list[str]:
    r = p.rnd
    key = p.secret()
    mark = p.marker("s32")
    shape = r.choice(["next-line", "tee", "placeholder", "tag", "exec-vars", "pd", "python"])
    server = r.choice(["vllm serve m", "python3 -m sglang.launch_server --model-path m"])
    if shape == "next-line":  # a redirection's target on the next line (after a continuation)
        return [
            f"export HF_TOKEN={key}",
            f"{server} --api-key $HF_TOKEN > \\",
            f"  $(touch {mark})server.log 2>&1",
        ]
    if shape == "tee":
        return [
            f"API_KEY={key}",
            f"{server} --api-key $API_KEY > >(tee -a log.txt; touch {mark}) 2> >(tee err.txt >&2)",
        ]
    if shape == "placeholder":
        holder = r.choice(["<target-model-path>", "<your-hf-token>", "<" + "x" * r.choice([10, 50000]) + ">"])
        return [f"{server} --model {holder} --api-key {key} --port <port> > <log-file>"]
    if shape == "tag":
        tag = r.choice(["${TAG}", "${TAG:-latest}", "${TAG:?set it}", "$(touch " + mark + ")", "${TAG//x/y}"])
        return [
            f"TAG={r.choice(['v0.11.1', '$1', '$(cat /etc/tag)'])}",
            f"docker run --gpus all -e HF_TOKEN={key} vllm/vllm-openai:{tag} --model m "
            f"--api-key {p.secret()}",
        ]
    if shape == "exec-vars":  # the string's own variables, set inside it
        runner = r.choice(["docker exec srv", "kubectl exec -it pod-0 --", "docker exec -e A=1 $C"])
        own = r.choice(["K", "HF_TOKEN", "API_KEY"])
        return [
            f"{runner} bash -c '{own}={key}; touch {mark}; {server} --api-key ${own} --port $((8000 + 1))'",
        ]
    if shape == "pd":  # RS080: a PD decode server with a speculative algorithm
        algo = r.choice(["DFLASH", "DSPARK", "EAGLE", "EAGLE3", "NGRAM", "x" * 3000])
        return [
            f"python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --api-key {key} "
            f"--speculative-algorithm {algo} &",
            f"python3 -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 "
            f"--speculative-algorithm {algo} --api-key {key} --framework-version 0.5.16",
        ]
    return []


def _python_launcher(p: _Plant) -> str:
    """``subprocess.run(shlex.split(cmd))`` with the secret in the command string."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("py32")
    cmd = r.choice(
        [
            f'f"vllm serve m --api-key {key} --port {{port}}"',
            f'"python3 -m sglang.launch_server --model-path m --api-key " + os.environ.get("K", "{key}")',
            f'"vllm serve m --api-key {key} " * {r.choice([2, 5000])}',
            f"'vllm serve m --api-key \"{key}\" $(touch {mark})'",
        ]
    )
    call = r.choice(
        [
            "subprocess.run(shlex.split(cmd), check=True)",
            "subprocess.Popen(shlex.split(cmd))",
            "subprocess.run(shlex.split(cmd, posix=False))",
            "subprocess.run(shlex.split(cmd), shell=False, env={**os.environ, 'HF_TOKEN': cmd})",
        ]
    )
    return (
        "import os\nimport shlex\nimport subprocess\n\n"
        f"os.system('touch {mark}')  # never run\n"
        "port = 8000\n"
        f"cmd = {cmd}\n"
        f"{call}\n"
    )


def _bash_n_lines(p: _Plant) -> list[str]:
    """Text that makes ``bash -n`` crash, flood or take long."""
    r = p.rnd
    shape = r.choice(["deep-subst", "heredocs", "nul", "long", "deep-if"])
    if shape == "deep-subst":  # past bash 5.2's stack: bash -n dies of SIGSEGV
        n = r.choice([1000, 3000, 20000])
        return ["X=" + "$(" * n + "echo" + ")" * n]
    if shape == "heredocs":
        return [f"cat <<EOF{i}" for i in range(r.choice([100, 20000]))]
    if shape == "nul":
        return ["echo a\x00b"] * r.choice([1, 1000])
    if shape == "long":
        return ["echo " + "a" * r.choice([2_000_000, 8_000_000])]
    n = r.choice([100, 20000])
    return ["if true; then " * n + "x; " + "fi; " * n]


def late32_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    r = rnd
    fmt = r.choice(FORMATS)
    if r.random() < 0.25:
        p.files["launch.py"] = _python_launcher(p).encode()
        argv = ["check", "--no-resolve", "--format", fmt, "launch.py"]
    else:
        lines = ["#!/bin/bash"]
        for _ in range(r.choice([1, 2, 3])):
            lines += _reader_lines(p)
        if r.random() < 0.35:
            where = r.randint(1, len(lines))
            lines[where:where] = _bash_n_lines(p)
        name = r.choice(["run.sh", "README.md"])
        text = "\n".join(lines) + "\n"
        if name == "README.md":
            text = "# Serving\n\n```bash\n" + text + "```\n"
        p.files[name] = text.encode()
        argv = ["check", "--no-resolve", "--format", fmt, name]
        if r.random() < 0.15:
            argv = ["lint", name]
    joined = b"".join(p.files.values()).decode("utf-8", "replace")
    return Case("late32", case_id, p.files, argv, [s for s in p.secrets if s in joined], p.markers)
