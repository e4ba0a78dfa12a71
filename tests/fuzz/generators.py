"""Fuzz cases for argtrace's CLI: launch scripts, server logs and compose/Kubernetes YAML (systemd units and
SkyPilot tasks: :mod:`tests.fuzz.carrier_generators`).

Every generator takes a seeded ``random.Random`` and returns a :class:`Case`: the files to write into an
empty directory, the argtrace arguments to run there, the secrets it planted (none may appear in the
output) and the marker files it planted (none may appear: argtrace must never run what it reads).

Files are templates: ``@DIR@`` stands for the case's directory (so a planted ``touch @DIR@/MARK_x`` lands
where the harness looks whatever directory argtrace runs it from) and is replaced when the case is written.
"""

from __future__ import annotations

import gzip
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "src" / "argtrace" / "frameworks" / "data" / "schemas"
SHELL_CORPUS = sorted((REPO / "tests" / "data" / "shell").glob("*/*.sh"))
LOG_SEEDS = sorted((REPO / "tests" / "data" / "logs").glob("**/*.log"))
YAML_SEEDS = sorted((REPO / "tests" / "transport" / "manifests").glob("*.yaml"))

DIR = "@DIR@"


@dataclass
class Case:
    kind: str  # a key of GENERATORS
    name: str
    files: dict[str, bytes]
    argv: list[str]  # argtrace's arguments (after the program name), run with the case directory as cwd
    secrets: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # file names under the case directory
    executables: list[str] = field(default_factory=list)  # files to chmod +x
    fifos: list[str] = field(default_factory=list)  # named pipes to create (nobody writes to them)


# ---------------------------------------------------------------- real flags from the bundled schemas


@dataclass(frozen=True)
class Flag:
    name: str
    takes_value: bool
    many: bool
    kind: str  # int | float | choice | json | str
    choices: tuple[str, ...]


@cache
def schema_flags(framework: str) -> tuple[Flag, ...]:
    """The long options of the newest bundled schema of ``framework``, with what their values look like."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    # the newest by version (not by file name: 0.5.9 sorts after 0.5.23) and through the loader (the
    # files are stored as shared parts + per-release files, frameworks/schema_store.py)
    newest = bundled_versions(framework, include_user=False)[-1]
    flags: list[Flag] = []
    for opt in load_schema(framework, newest).data["options"]:
        longs = [s for s in opt["option_strings"] if s.startswith("--")]
        if not longs or opt["action"] == "help":
            continue
        nargs = opt["nargs"]
        takes = nargs != 0
        typ = str(opt["type"])
        if opt["choices"]:
            kind = "choice"
        elif typ in ("int", "float"):
            kind = typ
        elif "json" in typ or "dataclass" in typ:
            kind = "json"
        else:
            kind = "str"
        choices = tuple(str(c) for c in opt["choices"] or ())
        for name in longs:
            flags.append(Flag(name, takes, nargs in ("+", "*"), kind, choices))
    return tuple(flags)


SECRET_FLAGS = {"sglang": ("--api-key", "--admin-api-key"), "vllm": ("--api-key",)}
SECRET_VARS = (
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "OPENAI_API_KEY",
    "DB_PASSWORD",
    "WANDB_API_KEY",
    "DB_PASS",
    "AWS_SECRET_ACCESS_KEY",
    "MY_SERVICE_AUTH",
)


def new_secret(rnd: random.Random) -> str:
    """A unique string that cannot occur by chance; sometimes shaped like a real Hugging Face token so the
    value-based masking is exercised too."""
    body = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(24))
    return rnd.choice([f"Zq7{body}", f"hf_{body}", f"sk-{body}", f"pw{body[:12]}"])


def flag_value(rnd: random.Random, flag: Flag) -> str:
    if flag.kind == "choice" and flag.choices:
        return rnd.choice(flag.choices)
    if flag.kind == "int":
        return str(rnd.choice([0, 1, 2, 8, 4096, 30000, -1, 10**12]))
    if flag.kind == "float":
        return rnd.choice(["0.8", "0.85", "1e-3", "nan", "-0.5"])
    if flag.kind == "json":
        return rnd.choice(['{"a": 1}', '{"rope_scaling": {"type": "yarn", "factor": 4.0}}', "[1, 2]", "{"])
    return rnd.choice(["/models/qwen", "auto", "a b", "x,y", "", "fp8", "Qwen/Qwen3-8B", "é", "--"])


# ---------------------------------------------------------------- shell quoting and words


def quote(rnd: random.Random, value: str) -> str:
    r = rnd.random()
    if r < 0.35:
        return "'" + value.replace("'", "'\\''") + "'"
    if r < 0.7:
        esc = value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
        return '"' + esc + '"'
    if r < 0.8:
        return "$'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if value and all(c.isalnum() or c in "/._-,:=" for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


class ScriptBuilder:
    """A launch script under construction: statements before the launch, the launch's words, and what was
    planted (secrets, markers, extra files)."""

    def __init__(self, rnd: random.Random, case_id: str) -> None:
        self.rnd = rnd
        self.case_id = case_id
        self.lines: list[str] = []
        self.secrets: list[str] = []
        self.markers: list[str] = []
        self.files: dict[str, bytes] = {}
        self.executables: list[str] = []
        self.framework = rnd.choice(["sglang", "vllm"])
        self.var_n = 0

    def marker(self, how: str) -> str:
        name = f"MARK_{how}_{self.case_id}"
        self.markers.append(name)
        return f"{DIR}/{name}"

    def var(self) -> str:
        self.var_n += 1
        return self.rnd.choice(["MODEL", "PORT", "TP", "ARGS", "X", "V"]) + str(self.var_n)

    # -- statements that do not start the server

    def planted_marker_statement(self) -> str:
        """A statement that would create a marker if anything executed it."""
        r = self.rnd
        how = r.choice(
            ["subst", "backtick", "eval", "trap", "procsub", "bashc", "source", "arith", "default"]
        )
        m = self.marker(how)
        if how == "subst":
            return f"{self.var()}=$(touch {m}; echo x)"
        if how == "backtick":
            return f"{self.var()}=`touch {m}`"
        if how == "eval":
            return f'eval "touch {m}"'
        if how == "trap":
            return f"trap 'touch {m}' EXIT"
        if how == "procsub":
            return f"cat <(touch {m}) >/dev/null"
        if how == "bashc":
            return f"bash -c 'touch {m}'"
        if how == "source":
            self.files["env_extra.sh"] = f"touch {m}\nexport EXTRA=1\n".encode()
            return r.choice(["source ./env_extra.sh", ". env_extra.sh", f"source {DIR}/env_extra.sh"])
        if how == "arith":
            return f"N=$(( $(touch {m}; echo 1) + 1 ))"
        return f": ${{{self.var()}:=$(touch {m})}}"

    def secret_statement(self) -> tuple[str, str | None]:
        """Plant a secret in a variable; returns the statement and the variable it names, if the secret is
        meant for a flag."""
        secret = new_secret(self.rnd)
        self.secrets.append(secret)
        name = self.rnd.choice(SECRET_VARS)
        export = self.rnd.choice(["export ", "", "declare -x "])
        return f"{export}{name}={quote(self.rnd, secret)}", name

    def statement(self, depth: int = 0) -> str:
        r = self.rnd
        kinds = ["assign", "export", "default", "echo", "mkdir", "cd", "comment", "ctrl", "array", "subst"]
        if depth < 2:
            kinds += ["if", "for", "case", "while", "func", "heredoc"]
        k = r.choice(kinds)
        v = self.var()
        if k == "assign":
            return f"{v}={quote(r, r.choice(['/models/qwen', '0,1', '30000', 'a b', '', '*']))}"
        if k == "export":
            name = r.choice(["CUDA_VISIBLE_DEVICES", "SGLANG_ENABLE_SPEC_V2", "VLLM_USE_V1", "NCCL_DEBUG"])
            return f"export {name}={r.choice(['0', '1', 'INFO', '0,1,2,3'])}"
        if k == "default":
            return f"{v}=${{{r.randint(1, 3)}:-{r.choice(['x', '30000', '/m'])}}}"
        if k == "echo":
            return f'echo "starting {v} on ${{PORT:-0}}" >&2'
        if k == "mkdir":
            return f"mkdir -p {DIR}/logs"
        if k == "cd":
            return r.choice(['cd "$(dirname "$0")"', f"cd {DIR}", "cd /nonexistent || true"])
        if k == "comment":
            return "# " + r.choice(
                ["note", "--port 1 is ignored", "TODO \u2014 check", "\x07bell \x1b[31mred\x1b[0m"]
            )
        if k == "ctrl":
            ctrl = r.choice(["a\x01b", "x\x1b]0;title\x07", "c\x7f", "tab\there"])
            return f"{v}='{ctrl}'"
        if k == "array":
            return f'{v}=(--a 1 "b c" ${{X:-d}})'
        if k == "subst":
            inner = "echo q"
            for _ in range(r.randint(1, 4)):
                inner = f"echo $({inner})"
            return f"{v}=$({inner})"
        if k == "if":
            then_, else_ = self.statement(depth + 1), self.statement(depth + 1)
            return f'if [ -n "${{{r.randint(1, 3)}}}" ]; then\n  {then_}\nelse\n  {else_}\nfi'
        if k == "for":
            return f"for i in 1 2 3; do\n  {self.statement(depth + 1)}\ndone"
        if k == "case":
            first, other = self.statement(depth + 1), self.statement(depth + 1)
            return f'case "$1" in\n  a|b) {first} ;;\n  *) {other} ;;\nesac'
        if k == "while":
            return f'while [ "$#" -gt 0 ]; do\n  {self.statement(depth + 1)}\n  shift\ndone'
        if k == "func":
            return f"f{v}() {{\n  {self.statement(depth + 1)}\n}}\nf{v} a b"
        delim = r.choice(["EOF", "'EOF'", "-EOF"])
        return f"cat > {DIR}/cfg.txt <<{delim}\nline $HOME `x`\n\tindented\nEOF"

    # -- the launch

    def launch_prefix(self) -> list[str]:
        r = self.rnd
        if self.framework == "sglang":
            return r.choice(
                [
                    ["python3", "-m", "sglang.launch_server"],
                    ["python", "-m", "sglang.launch_server"],
                    ["exec", "python3", "-m", "sglang.launch_server"],
                    ["sglang", "serve"],
                ]
            )
        return r.choice(
            [
                ["vllm", "serve", "Qwen/Qwen3-8B"],
                ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                ["exec", "vllm", "serve", "/models/m"],
            ]
        )

    def launch_words(self, secret_var: str | None) -> list[str]:
        r = self.rnd
        flags = schema_flags(self.framework)
        words: list[str] = []
        for _ in range(r.randint(1, 14)):
            f = r.choice(flags)
            name = f.name
            if r.random() < 0.04:  # a unicode dash a copy-paste from a web page brings
                name = r.choice(["\u2014", "\u2013"]) + name[2:]
            if not f.takes_value:
                words.append(name)
                continue
            value = quote(r, flag_value(r, f))
            if r.random() < 0.15:
                value = r.choice(['"$1"', "${2:-x}", '"${@:2}"', "$UNSET", '"$(echo 8)"'])
            if r.random() < 0.2:
                words.append(f"{name}={value}")
            else:
                words += [name, value]
        secret_flag = r.choice(SECRET_FLAGS[self.framework])
        if secret_var is not None and r.random() < 0.6:
            words += [secret_flag, f'"${secret_var}"']
        elif r.random() < 0.5:
            secret = new_secret(r)
            self.secrets.append(secret)
            words.append(
                f"{secret_flag}={secret}" if r.random() < 0.5 else f"{secret_flag} {quote(r, secret)}"
            )
        if r.random() < 0.2:
            words.append(f'--served-model-name "$(touch {self.marker("flagsubst")}; echo m)"')
        if r.random() < 0.3:
            words.append('"$@"')
        return words

    def interpreter_trap(self) -> list[str]:
        """An interpreter that is a shell script writing a marker: argtrace may ask an interpreter for the
        framework version, so this records whether it runs a wrapper it found in the launch."""
        m = self.marker("interp")
        self.files["venv/bin/python3"] = f"#!/bin/sh\ntouch {m}\nexit 1\n".encode()
        self.executables.append("venv/bin/python3")
        return [
            f"{DIR}/venv/bin/python3",
            "-m",
            "sglang.launch_server" if self.framework == "sglang" else "vllm.entrypoints.openai.api_server",
        ]

    def render_launch(self, words: list[str], prefix: list[str]) -> str:
        r = self.rnd
        style = r.choice(["one", "cont", "cont_comment", "array", "func", "background"])
        if style == "one":
            return " ".join(prefix + words)
        if style in ("cont", "cont_comment"):
            out = " ".join(prefix) + " \\\n"
            for i, w in enumerate(words):
                tail = " \\" if i < len(words) - 1 else ""
                if style == "cont_comment" and r.random() < 0.15:
                    out += "  # a comment inside the continuation\n"
                if r.random() < 0.05:
                    tail = " \\ "  # a space after the backslash
                out += f"  {w}{tail}\n"
            return out.rstrip("\n")
        if style == "array":
            return (
                "ARGS=(\n" + "\n".join(f"  {w}" for w in words) + "\n)\n" + " ".join(prefix) + ' "${ARGS[@]}"'
            )
        if style == "func":
            return "start() {\n  " + " ".join(prefix) + ' "$@"\n}\nstart ' + " ".join(words)
        return " ".join(prefix + words) + f" > {DIR}/logs/server.log 2>&1 &\necho $! > {DIR}/server.pid"

    def build(self) -> str:
        r = self.rnd
        out = [r.choice(["#!/bin/bash", "#!/usr/bin/env bash", "#!/bin/sh", ""])]
        if r.random() < 0.3:
            out.append(r.choice(["set -euo pipefail", "set -e", "set -u"]))
        secret_var = None
        for _ in range(r.randint(0, 8)):
            roll = r.random()
            if roll < 0.2:
                out.append(self.planted_marker_statement())
            elif roll < 0.35:
                stmt, secret_var = self.secret_statement()
                out.append(stmt)
            else:
                out.append(self.statement())
        prefix = self.interpreter_trap() if r.random() < 0.1 else self.launch_prefix()
        out.append(self.render_launch(self.launch_words(secret_var), prefix))
        for _ in range(r.randint(0, 2)):
            out.append(self.statement())
        text = "\n".join(out) + "\n"
        if r.random() < 0.1:
            text = text.replace("\n", "\r\n")
        elif r.random() < 0.1:  # CRLF on some lines only: the continuation breaks there
            text = "".join(line + ("\r\n" if r.random() < 0.3 else "\n") for line in text.split("\n"))
        return text


def script_case(rnd: random.Random, case_id: str) -> Case:
    b = ScriptBuilder(rnd, case_id)
    text = b.build()
    files = dict(b.files)
    files["launch.sh"] = text.encode("utf-8", "surrogateescape")
    argv = script_argv(rnd, "launch.sh", [rnd.choice(["0", "a", ""]), "30000"][: rnd.randint(0, 2)])
    return Case("script", case_id, files, argv, b.secrets, b.markers, b.executables)


def script_argv(rnd: random.Random, script: str, args: list[str]) -> list[str]:
    # --no-resolve: the resolution layer runs the frameworks' code for 15-75 s per launch, which is its own
    # tests' business; the fuzzers cover everything up to it.
    opts = ["--no-resolve"]
    if rnd.random() < 0.6:
        opts += ["--format", "json"]
    if rnd.random() < 0.5:
        opts.append("--no-shellcheck")
    if rnd.random() < 0.15:
        opts.append("--all-settings")
    return ["check", *opts, script, *args]


# ---------------------------------------------------------------- byte-level mutation


def mutate_bytes(rnd: random.Random, data: bytes, rounds: int, inserts: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rounds):
        if not buf:
            buf += rnd.choice(inserts)
            continue
        i = rnd.randrange(len(buf))
        j = min(len(buf), i + rnd.randint(1, 64))
        op = rnd.choice(["delete", "insert", "duplicate", "swap", "byte"])
        if op == "delete":
            del buf[i:j]
        elif op == "insert":
            buf[i:i] = rnd.choice(inserts)
        elif op == "duplicate":
            buf[i:i] = buf[i:j] * rnd.choice([1, 2, 10])
        elif op == "swap":
            k = rnd.randrange(len(buf))
            a, b = bytes(buf[i:j]), bytes(buf[k : k + (j - i)])
            buf[i:j], buf[k : k + len(b)] = b, a
        else:
            buf[i] = rnd.randrange(1, 256)
    return bytes(buf)


SHELL_INSERTS = [
    b"'",
    b'"',
    b"\\",
    b"$(",
    b")",
    b"`",
    b"${",
    b"}",
    b"\\\n",
    b"\r\n",
    b" # ",
    b"<<EOF\n",
    b"\xe2\x80\x94",
    b"\x1b[2J",
    b"((",
    b"[[",
    b"$'\\x41'",
    b"{a,b}",
    b"&",
    b";",
    b"|",
    b"\n",
]


def script_mutation_case(rnd: random.Random, case_id: str) -> Case:
    seed = rnd.choice(SHELL_CORPUS)
    data = seed.read_bytes()
    secret = new_secret(rnd)
    marker = f"MARK_mut_{case_id}"
    plant = f"export HF_TOKEN={secret}\nX=$(touch {DIR}/{marker})\n".encode()
    # The plant goes after the #! line, so it survives as often as the script's first lines do.
    head, _, rest = data.partition(b"\n")
    data = head + b"\n" + plant + rest
    data = mutate_bytes(rnd, data, rnd.randint(1, 8), SHELL_INSERTS)
    args: list[str] = []
    for line in seed.read_text().splitlines()[:3]:
        if line.startswith("# args:"):
            import shlex

            args = shlex.split(line[len("# args:") :])
    # A mutation may cut the planted secret; only the secrets still whole are checked.
    secrets = [secret] if f"HF_TOKEN={secret}\n".encode() in data else []
    markers = [marker] if f"$(touch {DIR}/{marker})".encode() in data else []
    return Case(
        "script-mut", case_id, {"launch.sh": data}, script_argv(rnd, "launch.sh", args), secrets, markers
    )


# ---------------------------------------------------------------- logs


def odd_server_args(rnd: random.Random, secret: str) -> str:
    """An SGLang ``server_args=ServerArgs(...)`` line with reprs parsers trip on."""
    fields = [
        f"model_path='{rnd.choice(['/m', 'a,b', 'q(uote)', 'x=1'])}'",
        f"api_key='{secret}'",
        f"hf_token={secret!r}",
        "tp_size=2",
        "mem_fraction_static=0.8",
        'json_model_override_args=\'{"a": [1, {"b": "c)"}]}\'',
        "lora_paths={'a': 'b'}",
        "x=<object at 0x7f>",
        "y=Path('/a/b')",
        "z=inf",
        "w=nan",
        "v=None",
        "u=[" * 50 + "]" * 50,
        "t='" + "\\'" * 20 + "'",
        's="a\'b"',
        "r=b'bytes'",
        "q={1, 2}",
        "p=(1,)",
        "o=" + "(" * 30,
    ]
    rnd.shuffle(fields)
    keep = fields[: rnd.randint(3, len(fields))]
    if not any(secret in f for f in keep):
        keep.append(f"api_key='{secret}'")
    return "[2026-01-01 00:00:00] server_args=ServerArgs(" + ", ".join(keep) + ")"


LOG_INSERTS = [
    b"\x00\x01\x02",
    b"\xff\xfe",
    b"\x1b[31m",
    b"\x1b]0;pwned\x07",
    b"\r",
    b"\n" * 3,
    b"(",
    b"'",
    b"server_args=ServerArgs(",
    b"Traceback (most recent call last):\n",
    b"\xe2\x80",
    b"INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.9.0\n",
]


def log_case(rnd: random.Random, case_id: str) -> Case:
    seed = rnd.choice(LOG_SEEDS)
    data = seed.read_bytes()
    secret = new_secret(rnd)
    lines = data.split(b"\n")
    # Plant the secret where a log carries one: the server_args dump or vLLM's non-default args.
    plant = rnd.choice(
        [
            odd_server_args(rnd, secret).encode(),
            (
                "INFO 01-01 00:00:00 [utils.py:1] non-default args: "
                f"{{'model': '/m', 'api_key': ['{secret}']}}"
            ).encode(),
            f"[2026-01-01 00:00:00] Environment: HF_TOKEN={secret}".encode(),
        ]
    )
    lines.insert(rnd.randint(0, len(lines)), plant)
    op = rnd.choice(["truncate", "repeat", "junk", "longline", "mutate", "none", "manylaunches"])
    if op == "truncate":
        lines = lines[: rnd.randint(1, len(lines))]
    elif op == "repeat":
        i = rnd.randrange(len(lines))
        lines[i:i] = lines[i : i + rnd.randint(1, 5)] * rnd.choice([10, 100, 2000])
    elif op == "junk":
        for _ in range(rnd.randint(1, 10)):
            lines.insert(
                rnd.randrange(len(lines) + 1), bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 200)))
            )
    elif op == "longline":
        lines.insert(
            rnd.randrange(len(lines) + 1),
            rnd.choice([b"x", b"(", b"'", b"a=1, "]) * rnd.choice([10**4, 10**5, 10**6]),
        )
    elif op == "mutate":
        lines = mutate_bytes(rnd, b"\n".join(lines), rnd.randint(1, 12), LOG_INSERTS).split(b"\n")
    elif op == "manylaunches":
        lines = lines * rnd.choice([5, 50])
    out = b"\n".join(lines)
    if secret.encode() not in out:  # truncation or mutation removed the plant: put it back, whole
        out = plant + b"\n" + out
    name = "server.log"
    if rnd.random() < 0.15:
        out = gzip.compress(out)
        name = "server.log.gz"
        if rnd.random() < 0.4:
            out = out[: rnd.randint(10, max(11, len(out) - 1))]  # a truncated .gz
    opts = (
        [rnd.choice(["--format", "--launch"]), rnd.choice(["json", "all", "-1", "1"])]
        if rnd.random() < 0.5
        else []
    )
    if opts and opts[0] == "--format" and opts[1] not in ("json",):
        opts = ["--format", "json"]
    if rnd.random() < 0.2:
        opts.append("--all-settings")
    if rnd.random() < 0.1:
        opts += ["--setting", rnd.choice(["mem", "", "api"])]
    return Case("log", case_id, {name: out}, ["log", *opts, name], [secret], [])


# ---------------------------------------------------------------- YAML


def _server_target(docs: list[object]) -> tuple[dict[str, object], bool] | None:
    """The compose service or Kubernetes container that starts the server, and whether it is compose."""
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        services = doc.get("services")
        if isinstance(services, dict) and services:
            return next(iter(services.values())), True
        spec = doc.get("spec") or {}
        pod = (spec.get("template") or {}).get("spec") or spec if isinstance(spec, dict) else {}
        containers = pod.get("containers") if isinstance(pod, dict) else None
        if isinstance(containers, list) and containers and isinstance(containers[0], dict):
            return containers[0], False
    return None


def _plant_yaml(rnd: random.Random, docs: list[object], secret: str, marker: str) -> bool:
    """Plant the secret in the server's environment and a marker-writing sibling container nobody may
    run; True for compose."""
    found = _server_target(docs)
    if found is None:
        return False
    target, compose = found
    name = rnd.choice(["HF_TOKEN", "DB_PASSWORD", "OPENAI_API_KEY"])
    touch = ["sh", "-c", f"touch {DIR}/{marker}"]
    if compose:
        env = target.get("environment")
        if isinstance(env, list):
            env.append(f"{name}={secret}")
        else:
            target["environment"] = {**(env if isinstance(env, dict) else {}), name: secret}
        services = next(d["services"] for d in docs if isinstance(d, dict) and "services" in d)
        services["side"] = {"image": "busybox", "command": touch}
        if rnd.random() < 0.3:
            target["healthcheck"] = {"test": ["CMD", *touch]}
    else:
        env = target.get("env")
        entry = {"name": name, "value": secret}
        target["env"] = [*env, entry] if isinstance(env, list) else [entry]
        target["lifecycle"] = {"postStart": {"exec": {"command": touch}}}
    return compose


def _add_secret_arg(target: dict[str, object], compose: bool, secret: str) -> None:
    key = "command" if compose else "args"
    value = target.get(key)
    if isinstance(value, list):
        value.append(f"--api-key={secret}")
    elif isinstance(value, str):
        target[key] = f"{value} --api-key {secret}"
    else:
        target[key] = ["--api-key", secret]


HOLE = "@HOLE@"  # a scalar replaced, after dumping, by text yaml.safe_dump would not write


def yaml_case(rnd: random.Random, case_id: str) -> Case:
    import yaml

    seed = rnd.choice(YAML_SEEDS)
    docs = list(yaml.safe_load_all(seed.read_text()))
    secret = new_secret(rnd)
    marker = f"MARK_yaml_{case_id}"
    compose = _plant_yaml(rnd, docs, secret, marker)
    found = _server_target(docs)
    assert found is not None, seed
    target = found[0]
    op = rnd.choice(["deep", "anchors", "types", "syntax", "huge", "mutate", "none", "secretarg"])
    hole = ""
    if op in ("deep", "anchors", "huge"):
        key = rnd.choice(["command", "args", "environment", "env", "x-extra", "image"])
        target[key] = HOLE
        if op == "deep":
            hole = deep_flow(rnd, rnd.choice([50, 500, 1000, 3000]))
        elif op == "huge":
            hole = "a" * rnd.choice([10**5, 10**6, 5 * 10**6])
        else:
            hole = f"*a{rnd.randint(2, 8)}"
    elif op == "types":
        key = rnd.choice(["command", "args", "env", "environment", "image", "ports", "containers"])
        target[key] = rnd.choice([42, {"a": 1}, True, None, [1, [2]], 1.5, ""])
        if rnd.random() < 0.2:
            docs[0] = rnd.choice([[], "x", 7, None])
    elif op == "secretarg":
        _add_secret_arg(target, compose, secret)
    text = yaml.safe_dump_all(docs, sort_keys=False, width=10**6)
    for form in (f"'{HOLE}'", HOLE):
        text = text.replace(form, hole)
    if op == "anchors":  # a billion-laughs document: each level refers to the previous ten times
        levels = ['a0: &a0 ["lol"]'] + [
            f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)
        ]
        bomb = "x-bomb:\n" + "\n".join("  " + lv for lv in levels) + "\n"
        # Anchors must come before their aliases: the bomb goes first in the server's document.
        text = bomb + text if compose else text.replace("apiVersion:", bomb + "apiVersion:", 1)
    elif op == "syntax":
        inserts = [
            b"\t",
            b": ",
            b"- ",
            b"'",
            b'"',
            b"{",
            b"[",
            b"&x ",
            b"*x",
            b"!!python/object/apply:os.system ",
            b"%YAML 9\n",
            b"---\n",
            b"\x1b[2J",
        ]
        text = mutate_bytes(rnd, text.encode(), rnd.randint(1, 5), inserts).decode("utf-8", "replace")
    elif op == "mutate":
        inserts = [b"\n", b" ", b"-", b"\x00", b"\xe2\x80\x94"]
        text = mutate_bytes(rnd, text.encode(), rnd.randint(1, 10), inserts).decode("utf-8", "replace")
    name = (
        rnd.choice(["compose.yaml", "docker-compose.yml"])
        if compose
        else rnd.choice(["deploy.yaml", "k8s.yml"])
    )
    opts = ["--no-resolve"] + (["--format", "json"] if rnd.random() < 0.6 else [])
    if rnd.random() < 0.5:
        opts.append("--no-shellcheck")
    data = text.encode("utf-8", "surrogateescape")
    secrets = [secret] if secret.encode() in data else []
    markers = [marker] if marker.encode() in data else []
    return Case("yaml", case_id, {name: data}, ["check", *opts, name], secrets, markers)


def deep_flow(rnd: random.Random, n: int) -> str:
    """A flow collection nested ``n`` deep, valid YAML wherever a value goes."""
    if rnd.random() < 0.5:
        return "[" * n + "1" + "]" * n
    return "{a: " * n + "1" + "}" * n


def _carrier_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a launch-carrier kind, from :mod:`tests.fuzz.carrier_generators` (which builds on
    this module, so it is imported when a case is made, not here)."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import carrier_generators

        made: Case = getattr(carrier_generators, f"{kind}_case")(rnd, case_id)
        return made

    return generate


def _text_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a pasted-text kind, from :mod:`tests.fuzz.text_generators`."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import text_generators

        made: Case = getattr(text_generators, f"{kind.replace('-', '_')}_case")(rnd, case_id)
        return made

    return generate


def _secret_case(rnd: random.Random, case_id: str) -> Case:
    """Secret forms and unopenable files, from :mod:`tests.fuzz.secret_generators`."""
    from tests.fuzz import secret_generators

    return secret_generators.secrets_case(rnd, case_id)


def _reader_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a kind of :mod:`tests.fuzz.reader_generators` (the readers of session 28)."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import reader_generators

        made: Case = getattr(reader_generators, f"{kind}_case")(rnd, case_id)
        return made

    return generate


def _hole_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a kind of :mod:`tests.fuzz.hole_generators` (the readers of session 28 the others
    do not reach: holed command strings, kubectl exec, compose strings and fragments, Markdown pages)."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import hole_generators

        made: Case = getattr(hole_generators, f"{kind}_case")(rnd, case_id)
        return made

    return generate


def _late_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a kind of :mod:`tests.fuzz.late_generators` (the readers of session 29: containers'
    holed strings and printf, compose include, log's argv and why's newer readers)."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import late_generators

        made: Case = getattr(late_generators, f"{kind}_case")(rnd, case_id)
        return made

    return generate


def _s32_case(kind: str) -> Callable[[random.Random, str], Case]:
    """The generator of a kind of :mod:`tests.fuzz.s32_generators` (session 32's readers: ``--gpu`` lines as
    nvidia-smi prints them, fa32's and sgl32's shell and Python readers, ``bash -n`` through posix_spawn)."""

    def generate(rnd: random.Random, case_id: str) -> Case:
        from tests.fuzz import s32_generators

        made: Case = getattr(s32_generators, f"{kind}_case")(rnd, case_id)
        return made

    return generate


GENERATORS = {
    "script": script_case,
    "script-mut": script_mutation_case,
    "log": log_case,
    "yaml": yaml_case,
    "systemd": _carrier_case("systemd"),
    "skypilot": _carrier_case("skypilot"),
    "why": _text_case("why"),
    "log-wrap": _text_case("log-wrap"),
    "secrets": _secret_case,
    "readers": _reader_case("readers"),
    "launchers": _reader_case("launchers"),
    "holes": _hole_case("holes"),
    "pages": _hole_case("pages"),
    "containers": _late_case("containers"),
    "includes": _late_case("includes"),
    "logargv": _late_case("logargv"),
    "gpus": _s32_case("gpus"),
    "late32": _s32_case("late32"),
}
KINDS = tuple(GENERATORS)


def make_case(seed: int, index: int, kind: str) -> Case:
    """Case ``index`` of ``kind`` for campaign ``seed``; the same arguments always give the same case."""
    rnd = random.Random(f"{seed}:{kind}:{index}")
    return GENERATORS[kind](rnd, f"{kind}-{seed}-{index}")
