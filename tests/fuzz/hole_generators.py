"""Fuzz cases for the readers of session 28 the other kinds do not reach (docs/reliability.md "Session 29
(safe29)").

``holes``: command strings known but for some values (layers/shell/holes.py): ``bash -c "... $ip ..."``,
``srun bash -c``, ``sbatch --wrap``, ``eval "$CMD"``, ``ssh host "..."``, ``kubectl``/``oc exec POD --``;
strings nested in strings (bash -c in bash -c in eval, through variables and ``printf %q``), holes doubled
past the 64 KiB and 64-hole bounds (``X="$X $X"``, ``${X//a/$X}``), 100 distinct holes, holes in
here-documents, inside every kind of quote, under ``IFS`` changes and ``${X//pat/rep}``. A secret rides in
each: an ``--api-key`` or ``HF_TOKEN=`` inside the holed string, a value known only once the string's
holes are filled (``eval "$CMD $KEY"``), a ``kubectl exec`` command's ``env HF_TOKEN=...``; every marker is a
``touch`` in the string or around it.

``pages``: compose ``command:`` strings with a secret and ``${VAR}`` interpolation, a compose fragment read
from its project directory (its ``env_file:`` and ``.env`` above it, with secrets), YAML and shell blocks of
a Markdown page (a dstack service, a compose file), and a Python launcher whose values are set under ``if``
(a secret chosen in a branch), each with a secret and a marker.
"""

from __future__ import annotations

import random

from tests.fuzz.generators import DIR, Case
from tests.fuzz.reader_generators import FORMATS, _Plant

SERVERS = [
    "python3 -m sglang.launch_server --model-path m",
    "vllm serve m",
    "python3 -m vllm.entrypoints.openai.api_server --model m",
]
# unknown values as scripts compute them
UNKNOWN = ["$(hostname -I)", "$(cat /etc/ip)", "`hostname`", "${SLURM_NODEID}", "$1", "$RANDOM"]


def _dq(text: str) -> str:
    """``text`` double-quoted for bash, every character literal."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    return '"' + out + '"'


def _secret_words(p: _Plant) -> tuple[str, str]:
    """A statement that sets a secret, and the launch words that carry it."""
    key = p.secret()
    form = p.rnd.choice(["flag", "env", "later", "quoted"])
    if form == "flag":
        return f"KEY={key}", "--api-key $KEY"
    if form == "env":
        return f"export HF_TOKEN={key}", "--api-key $HF_TOKEN"
    if form == "quoted":
        return f"KEY='{key}'", "--api-key '$KEY'"
    return f"KEY={key}", "--api-key"  # the value joins after the hole filling (eval "$CMD $KEY")


def _runner(p: _Plant, inner: str) -> str:
    """A line that runs the double-quoted string ``inner`` (its holes quoted expansions) in another shell."""
    r = p.rnd
    form = r.choice(["bash", "srun", "sbatch", "eval", "ssh", "kubectl", "oc", "sh", "var"])
    if form == "bash":
        return f'bash -c "{inner}"'
    if form == "sh":
        return f'sh -lc "{inner}" argv0'
    if form == "srun":
        return f'srun --nodes=2 --ntasks-per-node=1 bash -c "{inner}"'
    if form == "sbatch":
        return f'sbatch --nodes=1 --wrap="{inner}"'
    if form == "eval":
        return f'eval "{inner}"'
    if form == "ssh":
        return f'ssh -o StrictHostKeyChecking=no node1 "{inner}"'
    if form in ("kubectl", "oc"):
        opts = r.choice(["", "-it ", "-n=llm -c=srv ", "-n llm --container srv -i -t ", "-ti "])
        pod = r.choice(["pod/srv-0", "srv-0", "deploy/srv"])
        shell = r.choice(["bash -c", "sh -c", "/bin/bash -lc"])
        return f'{form} exec {opts}{pod} -- {shell} "{inner}"'
    return f'CMD="{inner}"\n' + r.choice(['eval "$CMD"', 'bash -c "$CMD"', "$CMD", "eval $CMD"])


def _plain(p: _Plant) -> list[str]:
    """One holed string with a secret and a marker, quoted in a random way."""
    r = p.rnd
    setk, words = _secret_words(p)
    mark = p.marker("plain")
    hole = r.choice(UNKNOWN)
    pre = r.choice(["", f"touch {mark}; ", f"$(touch {mark}) ", f"cd /tmp && touch {mark} && "])
    if words == "--api-key":  # the value added once the string is a variable
        lines = [setk, f"ip={hole}", f'CMD="{pre}{r.choice(SERVERS)} --host $ip --api-key"']
        return [*lines, r.choice(['eval "$CMD $KEY"', 'eval "$CMD" "$KEY"', 'bash -c "$CMD $KEY"'])]
    quoted = r.choice(["$ip", "'$ip'", '\\"$ip\\"', "${ip}", "${ip:-0.0.0.0}", "$'$ip'", "${ip//./-}"])
    inner = f"{pre}{r.choice(SERVERS)} --host {quoted} --port ${{PORT}} {words}"
    return [setk, f"ip={hole}", _runner(p, inner)]


def _nested(p: _Plant) -> list[str]:
    """A string in a string in a string: bash -c in bash -c in eval, to a depth of up to 12."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("nested")
    depth = r.choice([2, 3, 5, 12])
    lines = [f"export HF_TOKEN={key}", f"ip={r.choice(UNKNOWN)}"]
    how = r.choice(["vars", "printf", "literal"])
    if how == "literal":  # each level's text double-quoted anew (backslashes double at each level)
        text = f'touch {mark}; {r.choice(SERVERS)} --host "$ip" --api-key "$HF_TOKEN"'
        for _ in range(min(depth, 6)):
            text = r.choice(["bash -c ", "eval ", "sh -c "]) + _dq(text)
        return [*lines, text.replace("\\$ip", "$ip", 1)]
    lines.append(f'L0="touch {mark}; {r.choice(SERVERS)} --host $ip --api-key $HF_TOKEN"')
    for i in range(1, depth + 1):
        if how == "printf":
            lines.append(f"printf -v L{i} '{r.choice(['bash -c', 'eval', 'sh -c'])} %q' \"$L{i - 1}\"")
        else:
            lines.append(f"L{i}=\"{r.choice(['bash -c', 'eval', 'sh -c'])} '$L{i - 1}'\"")
    return [*lines, r.choice([f'eval "$L{depth}"', f'bash -c "$L{depth}"', f"$L{depth}"])]


def _bounds(p: _Plant) -> list[str]:
    """Holed texts past the bounds: doubling, substitution with a holed replacement, many holes."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("bounds")
    shape = r.choice(["double", "loop", "subst", "many", "long", "append"])
    head = [f"KEY={key}", f"ip={r.choice(UNKNOWN)}", 'X="--x $ip"']
    if shape == "double":
        head += ['X="$X $X"'] * r.choice([6, 7, 20, 40])
    elif shape == "loop":
        head.append(f'for i in {{1..{r.choice([10, 100, 5000])}}}; do X="$X --y $ip"; done')
    elif shape == "subst":
        head += [r.choice(['X="${X//x/$X}"', 'X="${X// /$X $ip }"', 'X="${X//?/$ip}"'])] * r.choice(
            [2, 5, 12]
        )
    elif shape == "many":
        n = r.choice([63, 64, 65, 200])
        head += [f"h{i}=$(cat /f{i})" for i in range(n)]
        head.append('X="' + " ".join(f"--x{i} $h{i}" for i in range(n)) + '"')
    elif shape == "long":
        head.append(f'X="$ip {"a" * r.choice([60000, 70000, 300000])} $ip"')
    else:
        head.append(f'for i in {{1..{r.choice([70, 700])}}}; do X+=" $ip"; done')
    inner = f"touch {mark}; {r.choice(SERVERS)} $X --api-key $KEY"
    return [*head, _runner(p, inner)]


def _heredoc(p: _Plant) -> list[str]:
    """Holes in here-documents: a string made from one, a here-document fed to a shell or ssh."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("heredoc")
    server = r.choice(SERVERS)
    body = f"touch {mark}\n{server} --host $ip --api-key {key}\n"
    form = r.choice(["cat", "bash", "ssh", "read", "kubectl"])
    head = [f"ip={r.choice(UNKNOWN)}"]
    if form == "cat":
        return [*head, f'CMD="$(cat <<EOF\n{body}EOF\n)"', r.choice(['eval "$CMD"', 'bash -c "$CMD"'])]
    if form == "bash":
        return [*head, f"bash <<EOF\n{body}EOF"]
    if form == "ssh":
        return [*head, f"ssh node1 bash -s <<EOF\n{body}EOF"]
    if form == "kubectl":
        return [*head, f"kubectl exec -i srv-0 -- bash -s <<EOF\n{body}EOF"]
    return [*head, f"read -r -d '' CMD <<EOF\n{body}EOF", 'eval "$CMD"']


def _ifs(p: _Plant) -> list[str]:
    """IFS changes between the string's making and its use, ${X//pat/rep} over a holed text."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("ifs")
    sep = r.choice([":", ",", "-", "a", "$'\\n'", "''"])
    lit = sep if len(sep) == 1 else ":"
    words = [*r.choice(SERVERS).split(), "--host", "$ip", "--api-key", "$API_KEY"]
    return [
        f"API_KEY={key}",
        f"ip={r.choice(UNKNOWN)}",
        f'CMD="{lit.join(words)}"',
        f"IFS={sep}",
        r.choice(
            ["$CMD", 'eval "$CMD"', "bash -c $CMD", 'C2="${CMD//:/ }"; eval "$C2"', 'set -- $CMD; "$@"']
        ),
        f"touch {mark}",
    ]


def _kube(p: _Plant) -> list[str]:
    """kubectl/oc exec with a secret in the command the pod runs, options of every shape."""
    r = p.rnd
    key = p.secret()
    mark = p.marker("kube")
    tool = r.choice(["kubectl", "oc", "kubectl --context=c -n ns", "/usr/bin/kubectl"])
    opts = r.choice(["", "-it", "-i -t", "-c srv", "--container=srv", "-n=llm -c=srv", "-q", "--", "-x"])
    pod = r.choice(["srv-0", "pod/srv-0", "deploy/x", '"$POD"', "$(kubectl get pods -o name | head -1)"])
    cmd = r.choice(
        [
            f"env HF_TOKEN={key} {r.choice(SERVERS)}",
            f"{r.choice(SERVERS)} --api-key {key}",
            f"sh -c 'touch {mark}; {r.choice(SERVERS)} --api-key {key}'",
            f'bash -c "HF_TOKEN={key} {r.choice(SERVERS)} --host $ip"',
            f"-- {r.choice(SERVERS)} --api-key={key}",
            f"touch {mark}",
        ]
    )
    return [f"ip={r.choice(UNKNOWN)}", f"POD=srv-{r.randint(0, 9)}", f"{tool} exec {opts} {pod} -- {cmd}"]


SHELL_PIECES = [_plain, _plain, _nested, _bounds, _heredoc, _ifs, _kube]


def holes_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    body: list[str] = ["#!/bin/bash"]
    for piece in rnd.sample(SHELL_PIECES, rnd.choice([1, 1, 2])):
        body += piece(p)
    p.files["launch.sh"] = ("\n".join(body) + "\n").encode()
    argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS)]
    if rnd.random() < 0.6:
        argv.append("--no-shellcheck")
    argv.append("launch.sh")
    if rnd.random() < 0.2:
        argv += ["10.0.0.1", "x y"]
    return Case("holes", case_id, p.files, argv, p.secrets, p.markers)


# ---------------------------------------------------------------- pages: compose, Markdown, Python under if


def _compose_command(p: _Plant) -> tuple[str, list[str]]:
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("compose")
    cmd = r.choice(
        [
            f"{r.choice(SERVERS)} --api-key {key} --host ${{HOST:-0.0.0.0}} --port $${{PORT:-30000}}",
            f"{r.choice(SERVERS)} --api-key=${{API_KEY:-{key}}}",
            f"bash -c 'touch {mark}; {r.choice(SERVERS)} --api-key {key}'",
            f'{r.choice(SERVERS)} --api-key "{key}" --x ${{' + "A:-${" * r.choice([3, 300]) + "}" * 300 + "}",
            f"{r.choice(SERVERS)} --api-key {key} " + "'unclosed \\ ${X",
            f"{r.choice(SERVERS)} --api-key {key} " + "--y z " * r.choice([10, 20000]),
        ]
    )
    env = f"      - HF_TOKEN={key2}\n      - HOST=$HOST\n"
    hook = f"    healthcheck:\n      test: [CMD-SHELL, 'touch {mark}h']\n"
    p.markers.append(f"MARK_compose_{p.case_id}h")
    text = (
        "services:\n  srv:\n    image: lmsysorg/sglang:v0.5.9\n"
        f"    command: {r.choice([repr(cmd), _dq(cmd).replace(chr(92) + '$', '$')])}\n"
        f"    environment:\n{env}{hook}"
    )
    return text, [key, key2]


def _fragment(p: _Plant) -> list[str]:
    """A compose file read as a fragment of the project above it (TP106): env files and .env from there."""
    r = p.rnd
    text, _ = _compose_command(p)
    key = p.secret()
    sub = r.choice(["services", "a/b/c", "deploy"])
    env_rel = r.choice([f"./{sub}/srv/override.env", f"./{sub}/srv/../srv/override.env", "./.env"])
    text = text.replace("    environment:\n", f"    env_file:\n      - {env_rel}\n    environment:\n", 1)
    p.files["compose.yml"] = b"services: {}\n" if r.random() < 0.7 else b"services: [\n"
    p.files[f"{sub}/srv/override.env"] = r.choice(
        [
            f"HF_TOKEN={key}\nOPENAI_API_KEY='{key}'\n",
            f"export API_KEY={key}\nX=$(touch {DIR}/MARK_envfile_{p.case_id})\n",
            f"DB_PASSWORD={key}\n" + "A=${B}\n" * r.choice([1, 50000]),
        ]
    ).encode()
    p.markers.append(f"MARK_envfile_{p.case_id}")
    p.files[".env"] = f"API_KEY={p.secret()}\nHOST=0.0.0.0\n".encode()
    p.files[f"{sub}/compose.sglang.yml"] = text.encode()
    return ["check", "--no-resolve", "--format", r.choice(FORMATS), f"{sub}/compose.sglang.yml"]


def _markdown(p: _Plant) -> list[str]:
    """A page whose launch is in its yaml or shell blocks, with secrets and markers in them."""
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("md")
    dstack = (
        "type: service\nname: srv\nimage: lmsysorg/sglang:latest\nenv:\n"
        f"  - HF_TOKEN={key}\n  - MODEL_ID\ncommands:\n"
        f"  - touch {mark}\n  - {r.choice(SERVERS)} --api-key {key2} --host $HOST\nport: 30000\n"
        "resources:\n  gpu: 24GB..:2\n"
    )
    compose, _ = _compose_command(p)
    server = r.choice(SERVERS)
    shell = (
        f"export HF_TOKEN={key}\nip=$(hostname -I)\n"
        f'bash -c "touch {mark}s; {server} --host $ip --api-key {key2}"\n'
    )
    p.markers.append(f"MARK_md_{p.case_id}s")
    blocks = r.sample(
        [("yaml", dstack), ("yml", compose), ("bash", shell), ("console", "$ dstack apply -f x.yml\n")],
        r.choice([1, 2, 3]),
    )
    page = ["# Serving\n\nSome prose with `--api-key` in it.\n"]
    for lang, body in blocks:
        fence = r.choice(["```", "~~~", "````"])
        indent = r.choice(["", "", "   ", "  - "])
        lines = body.splitlines()
        if indent == "  - ":
            page.append(f"  - {fence}{lang}\n" + "".join(f"    {ln}\n" for ln in lines) + f"    {fence}\n")
        else:
            page.append(
                f"{indent}{fence}{lang}\n" + "".join(f"{indent}{ln}\n" for ln in lines) + f"{indent}{fence}\n"
            )
    if r.random() < 0.2:
        page.append("```yaml\n" + "- " * r.choice([100, 3000]) + "x\n")  # unclosed and deep
    if r.random() < 0.2:
        page.append(("```yaml\ncommands:\n  - vllm serve m\n```\n") * r.choice([50, 2000]))
    p.files["README.md"] = "\n".join(page).encode()
    return ["check", "--no-resolve", "--format", r.choice(FORMATS), "README.md"]


def _python_if(p: _Plant) -> list[str]:
    """A Python launcher whose command and env are built under ``if``/``else`` (one branch holds a secret)."""
    r = p.rnd
    key, key2 = p.secret(), p.secret()
    mark = p.marker("pyif")
    cond = r.choice(["os.environ.get('MULTI')", "len(sys.argv) > 1", "True", "USE_KEY", "x == 1"])
    depth = r.choice([1, 3, 60])
    fixed: list[str] = []
    for i in range(depth):  # each level's `if` under the `if True:` of the level before
        ind = "    " * i
        fixed += [
            f"{ind}if {cond}:",
            f"{ind}    cmd += ['--api-key', '{key}']",
            f"{ind}    env['HF_TOKEN'] = '{key2}'",
            f"{ind}else:",
            f"{ind}    cmd += ['--x{i}', str({i})]",
        ]
        if i < depth - 1:
            fixed.append(f"{ind}if True:")
    text = (
        "import os\nimport subprocess\nimport sys\n\n"
        "USE_KEY = True\nx = 1\n"
        f"cmd = {r.choice(SERVERS).split()!r}\nenv = dict(os.environ)\n"
        + "\n".join(fixed)
        + "\n"
        + r.choice(
            [
                "subprocess.run(cmd, env=env, check=True)\n",
                f"os.system('touch {mark}; ' + ' '.join(cmd))\n",
                f"subprocess.run(['bash', '-c', 'touch {mark}; ' + ' '.join(cmd)], env=env)\n",
                "subprocess.Popen(' '.join(cmd), shell=True, env=env)\n",
            ]
        )
    )
    p.files["serve.py"] = text.encode()
    return ["check", "--no-resolve", "--format", r.choice(FORMATS), "serve.py"]


def pages_case(rnd: random.Random, case_id: str) -> Case:
    p = _Plant(rnd, case_id)
    form = rnd.choice(["compose", "fragment", "markdown", "markdown", "python"])
    if form == "compose":
        text, _ = _compose_command(p)
        p.files["compose.yaml"] = text.encode()
        argv = ["check", "--no-resolve", "--format", rnd.choice(FORMATS), "compose.yaml"]
    elif form == "fragment":
        argv = _fragment(p)
    elif form == "markdown":
        argv = _markdown(p)
    else:
        argv = _python_if(p)
    joined = b"".join(p.files.values()).decode("utf-8", "replace")
    planted = [s for s in p.secrets if s in joined]
    return Case("pages", case_id, p.files, argv, planted, p.markers)
