"""Fuzz cases for the commands that read pasted text: ``why`` on an error message or a whole pasted
traceback, and ``log`` / ``mem --from-log`` / ``why --log`` on logs seen through a wrapper (``docker
compose logs`` service prefixes, ``kubectl logs --timestamps``, journald, stern, ANSI colours, CRLF).

The texts start from the real logs in ``tests/data/logs/`` (their error and configuration lines) and plant
secrets the ways a paste carries them: ``Authorization: Bearer``, ``https://user:pass@``, ``NAME=VALUE``, a
``ServerArgs(...)`` or ``Namespace(...)`` repr with ``api_key``/``hf_token``, JSON headers, a value split over
two wrapped lines with the wrapper's prefix between. Then the shapes that make matchers slow: 10^4-10^5
repeats of ``(``, ``'``, ``=``, ``:``, spaces, digits or prefixes, nested brackets, a 1 MB line, control
bytes. A case's secrets are counted only while one of their labels survives (``carrier_generators.labelled``).
"""

from __future__ import annotations

import random

from tests.fuzz.generators import LOG_SEEDS, Case, mutate_bytes, new_secret

PREFIXES = [
    "sglang-1  | ",
    "vllm-server-1  | ",
    "2026-01-02T03:04:05.123456789Z ",
    "Jan 02 03:04:05 node1 python3[1234]: ",
    "pod/sglang-0 sglang ",
    "\x1b[36msglang-1  |\x1b[0m ",
    "[pod-7f9c] [sglang] ",
    "",
]
SLOW = ["(", "'", "=", ": ", " ", "0", "a=1, ", "sglang-1  | ", "\\", "[", "{'a': ", "Error: ", "--", "x" * 7]


def _error_lines() -> list[str]:
    out: list[str] = []
    for path in LOG_SEEDS[:60]:
        for line in path.read_text(errors="replace").splitlines():
            if any(w in line for w in ("Error", "error:", "Exception", "assert", "must", "server_args=")):
                out.append(line[:2000])
    return out or ["ValueError: tp_size must divide the number of attention heads"]


def _planted(rnd: random.Random, secret: str) -> str:
    return rnd.choice(
        [
            f"Authorization: Bearer {secret}",
            f"requests.exceptions.HTTPError: 401 for url: https://user:{secret}@huggingface.co/api/models/m",
            f"HF_TOKEN={secret} python3 -m sglang.launch_server --model-path m",
            f"server_args=ServerArgs(model_path='m', api_key='{secret}', tp_size=2)",
            f"args: Namespace(model='m', api_key=['{secret}'], hf_token=None)",
            f'"headers": {{"authorization": "Bearer {secret}", "x-api-key": "{secret}"}}',
            f"OPENAI_API_KEY='{secret}'",
            f"--api-key {secret} --tp 2",
        ]
    )


def _slow_text(rnd: random.Random) -> str:
    unit = rnd.choice(SLOW)
    n = rnd.choice([10**3, 10**4, 5 * 10**4]) // max(1, len(unit) // 4)
    if rnd.random() < 0.3:
        return "(" * n + "x" + ")" * n
    return unit * n + rnd.choice(["", "!", "\n", "Error: x"])


def why_case(rnd: random.Random, case_id: str) -> Case:
    lines = _error_lines()
    secret = new_secret(rnd)
    parts = [rnd.choice(lines) for _ in range(rnd.randint(1, 8))]
    parts.insert(rnd.randint(0, len(parts)), _planted(rnd, secret))
    op = rnd.choice(["plain", "slow", "mutate", "wrapped", "split", "control"])
    if op == "slow":
        parts.insert(rnd.randint(0, len(parts)), _slow_text(rnd))
    elif op == "wrapped":
        prefix = rnd.choice(PREFIXES)
        parts = [prefix + p for p in parts]
    elif op == "control":
        parts = [p + rnd.choice(["\r", "\x1b[2J", "\x07", "\t", "\u202e"]) for p in parts]
    text = "\n".join(parts)
    if op == "mutate":
        inserts = [b"(", b"'", b"\n", b": ", b"\xe2\x80\x94"]
        raw = mutate_bytes(rnd, text.encode(), rnd.randint(1, 10), inserts)
        text = raw.decode("utf-8", "replace")
    text = text.replace("\x00", "")[:120_000]  # one argv word: under Linux's 128 KiB MAX_ARG_STRLEN
    files: dict[str, bytes] = {}
    argv = ["why"]
    if rnd.random() < 0.4:
        argv += ["--format", rnd.choice(["json", "sarif", "gcc", "github"])]
    if rnd.random() < 0.3:
        files["server.log"] = text.encode()
        argv += ["--log", "server.log", rnd.choice(lines)[:200] or "error"]
    else:
        argv.append(text)
    if rnd.random() < 0.2:
        argv.insert(1, "--all")
    if op == "split":
        # a second secret wrapped over two lines, the wrapper's prefix between its halves: the second half
        # stands alone, with nothing to mark it (docs/redaction.md "Not yet"), so it is not counted
        wrapped = new_secret(rnd)
        cut = len(wrapped) // 2
        first, second = rnd.choice(PREFIXES), rnd.choice(PREFIXES)
        line = f"{first}Authorization: Bearer {wrapped[:cut]}\n{second}{wrapped[cut:]}"
        argv[-1] = argv[-1] + "\n" + line
    joined = "\n".join(argv) + "".join(v.decode("utf-8", "replace") for v in files.values())
    secrets = [secret] if secret in joined else []
    return Case("why", case_id, files, argv, secrets, [])


def log_wrap_case(rnd: random.Random, case_id: str) -> Case:
    seed = rnd.choice(LOG_SEEDS)
    lines = seed.read_text(errors="replace").splitlines()[:3000]
    secret = new_secret(rnd)
    lines.insert(rnd.randint(0, len(lines)), _planted(rnd, secret))
    prefix = rnd.choice(PREFIXES)
    op = rnd.choice(["plain", "mixed", "slow", "crlf", "repeat-prefix", "longline", "mutate"])
    if op == "mixed":  # two services' prefixes interleaved, as `docker compose logs` prints them
        other = rnd.choice(PREFIXES)
        lines = [(prefix if i % 2 else other) + line for i, line in enumerate(lines)]
    else:
        lines = [prefix + line for line in lines]
    if op == "slow":
        lines.insert(rnd.randrange(len(lines) + 1), prefix + _slow_text(rnd))
    elif op == "repeat-prefix":
        lines.insert(rnd.randrange(len(lines) + 1), prefix * rnd.choice([10**3, 10**4, 10**5]))
    elif op == "longline":
        lines.insert(rnd.randrange(len(lines) + 1), prefix + "server_args=ServerArgs(" + "a=1, " * 200_000)
    text = ("\r\n" if op == "crlf" else "\n").join(lines)
    data = text.encode()
    if op == "mutate":
        data = mutate_bytes(rnd, data, rnd.randint(1, 12), [b"|", b"  | ", b"\n", b"Z ", b"\x1b[0m", b"\x00"])
    command = rnd.choice(["log", "log", "log", "mem", "why"])
    if command == "log":
        argv = ["log", *(["--format", "json"] if rnd.random() < 0.5 else []), "server.log"]
    elif command == "mem":
        argv = ["mem", "--from-log", "server.log", "--model-config", "config.json"]
    else:
        argv = ["why", "--log", "server.log", rnd.choice(["must", "Error", "out of memory", "(", "a" * 500])]
    files = {"server.log": data}
    if command == "mem":
        files["config.json"] = (
            b'{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,'
            b' "intermediate_size": 4864, "num_attention_heads": 14, "num_hidden_layers": 24,'
            b' "num_key_value_heads": 2, "vocab_size": 151936, "torch_dtype": "bfloat16"}'
        )
    secrets = [secret] if secret.encode() in data else []
    return Case("log-wrap", case_id, files, argv, secrets, [])
