"""Fuzz cases for the readers argtrace gained after the other kinds were written (session 28's probe,
docs/reliability.md "Session 28 (safe28)").

``readers``: launch scripts whose values come through case/``[[ ]]`` patterns and extglob (catastrophic
shapes: ``+(a|aa)`` nests, ``*a*a*a*b``, 10^4 alternatives, groups nested up to 2,000 deep, against values of
up to 30,000 characters, and ``${X//pat/rep}``, ``${X##pat}``, ``${X%%pat}``), ``printf`` (``%999999999s``,
``%*d`` with a huge width, ``%q`` of a secret), util-linux ``getopt`` (thousands of long options, an
``--api-key`` it reorders), ``read``/``mapfile``/while-read over here-documents (up to 10^5 lines, a secret
line), a file the script writes from a here-document and sources (itself, in a cycle, planting a marker),
``set -u``, and ``bash -lc -- SCRIPT`` in a container.

``launchers``: sgl-project/ome runtimes (``ClusterServingRuntime``: engine and decoder, leader and workers,
nested deep, huge or odd ``worker.size``, a secret in the runner's env and args, ``sh -c`` and ``postStart``
markers) and Python launchers (``" ".join(cmd)`` with ``shell=True``, ``os.system``, ``subprocess.run`` of
``bash -c``, a top-level marker write; lists of 10^4 items, expressions nested deep), a secret in
``os.environ``, an ``env=`` dict and the command's ``--api-key``.

Every planted secret keeps a label (a secret name before ``=``, ``--api-key``) or a token shape, and every
marker is a ``touch`` nothing may run.
"""

from __future__ import annotations

import random

from tests.fuzz.generators import DIR, Case, new_secret

FORMATS = ["text", "text", "json", "sarif", "github", "gcc", "junit", "json-lines"]
SHELL_SERVERS = ["python3 -m sglang.launch_server --model-path /m", "vllm serve /m"]


class _Plant:
    def __init__(self, rnd: random.Random, case_id: str) -> None:
        self.rnd = rnd
        self.case_id = case_id
        self.secrets: list[str] = []
        self.markers: list[str] = []
        self.files: dict[str, bytes] = {}
        self.args: list[str] = []  # the script's arguments ($@)

    def secret(self) -> str:
        s = new_secret(self.rnd)
        self.secrets.append(s)
        return s

    def marker(self, how: str) -> str:
        name = f"MARK_{how}_{self.case_id}"
        self.markers.append(name)
        return f"{DIR}/{name}"


# ---------------------------------------------------------------- shell readers


def _long_value(rnd: random.Random) -> tuple[str, str]:
    """A statement setting V to a long run of `a` (by a literal, printf or a here-document), and its text."""
    n = rnd.choice([30, 300, 3000, 30000])
    tail = rnd.choice(["", "b", "c"])
    how = rnd.choice(["literal", "printf", "read"])
    if how == "literal":
        return f"V={'a' * n}{tail}", "a" * n + tail
    if how == "printf":
        return f"V=$(printf 'a%.0s' {{1..{min(n, 9000)}}}){tail}", ""
    return f"read -r V <<EOF\n{'a' * n}{tail}\nEOF", "a" * n + tail


def _hostile_pattern(rnd: random.Random) -> str:
    shape = rnd.choice(["alts", "nest", "stars", "many", "negated", "mixed"])
    if shape == "alts":
        return "+(a|aa)" * rnd.randint(1, 3) + "b"
    if shape == "nest":
        d = rnd.choice([2, 5, 16, 17, 100, 2000])
        return "+(" * d + rnd.choice(["a", "a|aa"]) + ")" * d + rnd.choice(["", "b"])
    if shape == "stars":
        return "*a" * rnd.randint(3, 12) + "*b"
    if shape == "many":
        return "@(" + "|".join(f"w{i}" for i in range(rnd.choice([100, 10000]))) + "|a*)"
    if shape == "negated":
        return "!(+(a|aa)b)"
    return "*(*(*(a)|a)|aa)" + rnd.choice(["b", "", "*"])


def _extglob(p: _Plant) -> list[str]:
    r = p.rnd
    stmt, _ = _long_value(r)
    pat = _hostile_pattern(r)
    use = r.choice(["case", "cond", "subst", "trim"])
    lines = ["shopt -s extglob", stmt]
    if use == "case":
        lines.append(f'case "$V" in\n  {pat}) TP=2 ;;\n  *) TP=1 ;;\nesac')
    elif use == "cond":
        lines.append(f"if [[ $V == {pat} ]]; then TP=2; else TP=1; fi")
    elif use == "subst":
        lines.append(f"W=${{V//{pat}/x}}; TP=${{#W}}")
    else:
        lines.append(f"W=${{V{r.choice(['##', '%%', '#', '%'])}{pat}}}; TP=${{#W}}")
    key = p.secret()
    lines.append(f"API_KEY='{key}'")
    lines.append(f'case "$API_KEY" in\n  {pat}|+([[:alnum:]_-])) KEY="$API_KEY" ;;\n  *) KEY=none ;;\nesac')
    return [*lines, '@LAUNCH@ --tp "$TP" --api-key "$KEY"']


def _printf(p: _Plant) -> list[str]:
    r = p.rnd
    huge = r.choice(
        [
            "printf -v W '%999999999s' x",
            "W=$(printf '%*d' 99999999999 1)",
            "printf -v W '%.999999999f' 1",
            "printf -v W '%-*s|' -999999999 x",
            "W=$(printf '%0999999999d' 7)",
            "printf -v W '%s,' {1..20000}",
            "printf -v W '%99999999999999999999s' x",
        ]
    )
    key = p.secret()
    quoting = r.choice(
        [
            f"TOKEN='{key}'\nprintf -v K '%q' \"$TOKEN\"",
            f"HF_TOKEN='{key} x'\nK=$(printf '%q' \"$HF_TOKEN\")",
            f"printf -v K '%s' '{key}'\nexport OPENAI_API_KEY=\"$K\"",
            f"K=$(printf '%b' 'A\\x42{key}')\nexport DB_PASSWORD=\"$K\"",
        ]
    )
    return [huge, quoting, '@LAUNCH@ --served-model-name "${W:0:8}" --api-key "$K"']


def _getopt(p: _Plant) -> list[str]:
    r = p.rnd
    n = r.choice([3, 100, 5000])
    longs = ",".join(["tp:", "api-key:", *(f"opt{i}:" for i in range(n))])
    key = p.secret()
    p.args = r.choice(
        [
            ["extra", "--api-key", key, "--tp", "2"],
            ["--tp=2", "pos", f"--api-key={key}"],
            ["--api-key", key, *(["--opt1", "v"] * r.choice([1, 3000]))],
            ["-k", key, "--", "--tp", "2"],
        ]
    )
    return [
        f'OPTS=$(getopt -o t:k: --long {longs} -n serve -- "$@")',
        'eval set -- "$OPTS"',
        'while true; do\n  case "$1" in\n    -t|--tp) TP=$2; shift 2 ;;\n'
        "    -k|--api-key) KEY=$2; shift 2 ;;\n    --opt*) shift 2 ;;\n    --) shift; break ;;\n"
        "    *) break ;;\n  esac\ndone",
        '@LAUNCH@ --tp "${TP:-1}" --api-key "$KEY"',
    ]


def _stdin(p: _Plant) -> list[str]:
    r = p.rnd
    n = r.choice([10, 1000, 100000])
    key = p.secret()
    loop = r.choice(
        [
            'while read -r a b; do ARGS+=("--$a" "$b"); done <<EOF\n' + "x y\n" * n + "EOF",
            "mapfile -t ARGS <<EOF\n" + "--x\n" * n + "EOF",
            "while IFS= read -r line; do N=$((N+1)); done <<'EOF'\n" + "a b c\n" * n + "EOF",
            "{ read -r A; read -r B; } <<EOF\n" + "one\n" * n + 'EOF\nARGS=("$A" "$B")',
        ]
    )
    secret = r.choice(
        [
            f'read -r KEY <<EOF\n{key}\nEOF\nexport API_KEY="$KEY"',
            f"read -r KEY <<< 'API_KEY={key}'\nKEY=${{KEY#API_KEY=}}",
            f'IFS== read -r NAME VAL <<EOF\nHF_TOKEN={key}\nEOF\nexport "$NAME=$VAL"\nKEY=$VAL',
            f"mapfile -t L <<'EOF'\nOPENAI_API_KEY={key}\nEOF\nKEY=${{L[0]#*=}}",
        ]
    )
    return [loop, secret, '@LAUNCH@ "${ARGS[@]:0:4}" --api-key "$KEY"']


def _sourced(p: _Plant) -> list[str]:
    r = p.rnd
    key = p.secret()
    mark = p.marker("sourced")
    form = r.choice(["self", "cycle", "marker", "chain"])
    if form == "self":
        return [
            f"cat > {DIR}/env.sh <<EOF\nsource {DIR}/env.sh\nexport HF_TOKEN={key}\nEOF",
            f"source {DIR}/env.sh",
            '@LAUNCH@ --api-key "$HF_TOKEN"',
        ]
    if form == "cycle":
        return [
            f"cat > {DIR}/a.sh <<EOF\n. {DIR}/b.sh\nEOF",
            f"cat > {DIR}/b.sh <<EOF\nexport API_KEY={key}\n. {DIR}/a.sh\nEOF",
            f". {DIR}/a.sh",
            '@LAUNCH@ --api-key "$API_KEY"',
        ]
    if form == "marker":
        return [
            f"cat > {DIR}/env.sh <<'EOF'\ntouch {mark}\nX=$(touch {mark}2)\nexport DB_PASSWORD={key}\nEOF",
            f"source {DIR}/env.sh",
            '@LAUNCH@ --api-key "$DB_PASSWORD"',
        ]
    depth = r.choice([3, 50, 400])
    lines = [f"cat > {DIR}/e{i}.sh <<EOF\nsource {DIR}/e{i + 1}.sh\nEOF" for i in range(depth)]
    lines.append(f"cat > {DIR}/e{depth}.sh <<EOF\nexport HF_TOKEN={key}\ntouch {mark}\nEOF")
    return [*lines, f"source {DIR}/e0.sh", '@LAUNCH@ --api-key "$HF_TOKEN"']


def _nounset(p: _Plant) -> list[str]:
    r = p.rnd
    key = p.secret()
    return [
        r.choice(["set -u", "set -euo pipefail", "set -o nounset"]),
        f"export HF_TOKEN='{key}'",
        r.choice(
            [
                'X="${UNSET_VAR}"',
                ': "${NEED:?set NEED, token is $HF_TOKEN}"',
                "X=${A" + "${B" * 300 + "}" * 300 + "}",
                'for i in "${EMPTY[@]}"; do :; done',
            ]
        ),
        '@LAUNCH@ --api-key "$HF_TOKEN" --tp ${TP:-1}',
    ]


def _bash_lc(p: _Plant) -> list[str]:
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("bashlc")
    inner = f"touch {mark}; export HF_TOKEN={key2}; {r.choice(SHELL_SERVERS)} --api-key {key}"
    form = r.choice(["docker", "exec", "compose"])
    if form == "compose":
        p.files["compose.yaml"] = (
            "services:\n  s:\n    image: lmsysorg/sglang:latest\n"
            f'    command: ["bash", "-lc", "--", "{inner}"]\n'
        ).encode()
    if form == "docker":
        return [f"docker run --rm -e OPENAI_API_KEY={key2} img bash -lc -- '{inner}'"]
    return [f"exec bash -lc -- '{inner}'"]


SHELL_PIECES = [_extglob, _printf, _getopt, _stdin, _sourced, _nounset, _bash_lc]


def readers_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    pieces = rnd.sample(SHELL_PIECES, rnd.choice([1, 1, 2]))
    body: list[str] = ["#!/bin/bash"]
    for piece in pieces:
        body += piece(p)
    server = rnd.choice(SHELL_SERVERS)
    text = "\n".join(line.replace("@LAUNCH@", server) for line in body) + "\n"
    p.files["launch.sh"] = text.encode()
    target = "compose.yaml" if "compose.yaml" in p.files and rnd.random() < 0.5 else "launch.sh"
    argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS)]
    if rnd.random() < 0.5:
        argv.append("--no-shellcheck")
    argv += [target, *(p.args if target == "launch.sh" else [])]
    return Case("readers", case_id, p.files, argv, p.secrets, p.markers)


# ---------------------------------------------------------------- launchers: ome runtimes, Python


def _ome(p: _Plant) -> tuple[str, bytes]:
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("ome")
    size = r.choice(["1", "3", "0", "-1", ".inf", "1" + "0" * 400, "'x'", "null"])
    gpus = r.choice(["8", "1" + "0" * 400, "-8", "x"])
    runner_env = f"        env:\n        - name: HF_TOKEN\n          value: {key}\n"
    args = f"        args: [--tp, '8', --api-key, {key2}]\n"
    if r.random() < 0.4:
        args = (
            "        command: [sh, -c]\n"
            f"        args: ['touch {mark}; python3 -m sglang.launch_server --model-path $MODEL_PATH"
            f" --api-key {key2}']\n"
        )
    hook = (
        "        lifecycle:\n          postStart:\n            exec:\n"
        f"              command: [touch, {mark}h]\n"
    )
    p.markers.append(f"MARK_ome_{p.case_id}h")
    deep = ""
    if r.random() < 0.25:  # past 100 levels the file is refused whole (usage error)
        d = r.choice([20, 90, 500, 3000])
        deep = "        x-deep: " + "[" * d + "1" + "]" * d + "\n"
    runner = (
        "      runner:\n        name: ome-container\n        image: docker.io/lmsysorg/sglang:v0.5.5\n"
        + args
        + runner_env
        + hook
        + deep
        + f"        resources:\n          limits:\n            nvidia.com/gpu: {gpus}\n"
    )
    part = r.choice(["engineConfig", "decoderConfig"])
    shape = r.choice(["plain", "lws"])
    if shape == "plain":
        body = f"  {part}:\n" + runner.replace("      ", "    ", 1)
    else:
        body = f"  {part}:\n    leader:\n" + runner + f"    worker:\n      size: {size}\n" + runner
    kind = r.choice(["ClusterServingRuntime", "ServingRuntime"])
    text = f"apiVersion: ome.io/v1beta1\nkind: {kind}\nmetadata:\n  name: srt\nspec:\n{body}"
    return "runtime.yaml", text.encode()


def _python(p: _Plant) -> tuple[str, bytes]:
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("py")
    many = r.choice([0, 10, 10000])
    extra = "".join(f'    "--x{i}", "v",\n' for i in range(many))
    head = (
        "import os\nimport subprocess\n\n"
        f'open("{mark}top", "w").close()\n'
        f'os.environ["HF_TOKEN"] = "{key}"\n'
        'MODEL = "Qwen/Qwen3-8B"\n'
    )
    p.markers.append(f"MARK_py_{p.case_id}top")
    cmd = f'cmd = [\n    "vllm",\n    "serve",\n    MODEL,\n    "--api-key",\n    "{key2}",\n{extra}]\n'
    if r.random() < 0.3:
        cmd += "".join('cmd += ["--y", "1"]\n' for _ in range(r.choice([10, 5000])))
    if r.random() < 0.3:
        d = r.choice([100, 1000, 5000])
        cmd += "N = " + "(" * d + "1" + ")" * d + "\n"
    if r.random() < 0.3:
        cmd += 'S = "' + '" + "'.join(["a"] * r.choice([100, 20000])) + '"\n'
    if r.random() < 0.3:  # keys Python refuses when it runs (unhashable)
        cmd += r.choice(
            ['ENV = {}\nENV[[1]] = "x"\n', 'ENV = {[1]: "x", "A": 1}\n', "ENV = {**{(1, [2]): 3}}\n"]
        )
        cmd += 'subprocess.run(["vllm", "serve", "m"], env=ENV)\n'
    run = r.choice(
        [
            f'subprocess.Popen(" ".join(cmd), shell=True, env={{"OPENAI_API_KEY": "{key}"}})\n',
            f'os.system("touch {mark}; " + " ".join(cmd))\n',
            f'subprocess.run(["bash", "-c", "touch {mark}; " + " ".join(cmd)], check=True)\n',
            "subprocess.run(cmd, check=True)\n",
            f"subprocess.run(f\"touch {mark} && {{' '.join(cmd)}}\", shell=True)\n",
        ]
    )
    name = r.choice(["serve.py", "app.py"])
    return name, (head + cmd + run).encode()


def launchers_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    name, data = _ome(p) if rnd.random() < 0.5 else _python(p)
    p.files[name] = data
    argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS), name]
    return Case("launchers", case_id, p.files, argv, p.secrets, p.markers)
