"""Fuzz cases for argtrace's launch carriers read by content: systemd service units and SkyPilot task YAML.

Templates after the real ones in ``tests/data/real_cases_carriers3/``, then mutated where these formats'
own rules are subtle: systemd's quoting, ``\\`` continuations, ``%`` specifiers, ``$``/``${`` forms, the
``@-:+!`` prefixes, ``EnvironmentFile=`` pointing at secrets, FIFOs, devices and huge files; SkyPilot's
``envs:`` with non-string values, ``secrets:``, ``run:``/``setup:`` scripts, deep nesting and anchors. Every
case plants secrets (none may appear in the output) and markers (files a command the input names would
create: none may appear). Same contract as :mod:`tests.fuzz.generators`, whose helpers these build on.
"""

from __future__ import annotations

import random
import re

from tests.fuzz.generators import (
    DIR,
    SECRET_FLAGS,
    SECRET_VARS,
    Case,
    deep_flow,
    flag_value,
    mutate_bytes,
    new_secret,
    quote,
    schema_flags,
)

# ---------------------------------------------------------------- launch carriers: systemd units


def _sd_quote(rnd: random.Random, value: str) -> str:
    """A word as a unit file may write it: bare, double- or single-quoted (systemd.syntax(7), "Quoting")."""
    r = rnd.random()
    if r < 0.3:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if r < 0.45:
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return value


def labelled(secret: str, data: bytes) -> bool:
    """Whether ``secret`` is in ``data`` in a form that says it is one: under a label (a name with TOKEN,
    KEY, PASS, SECRET or AUTH in it before ``=`` or ``:``, or ``--api-key``), or shaped like a token argtrace
    masks by its value (``hf_...``, ``sk-...``). A byte mutation that cut the label of another value
    (``${MOkey SECRET``) leaves a word nothing can tell from any other, so its appearing in the report is the
    mutator's, not a leak; the test is loose on purpose (a mangled name that still looks secret counts)."""
    if secret.startswith(("hf_", "sk-")):
        return secret.encode() in data
    flags = "|".join(re.escape(f) for fs in SECRET_FLAGS.values() for f in fs)
    label = re.compile(
        rf"(?:(?:TOKEN|KEY|PASS|SECRET|AUTH)[\w-]*\s*[=:][\s'\"]*|(?:{flags})[\s\\'\"=]*)\Z".encode(),
        re.IGNORECASE,
    )
    # only the 80 bytes before each occurrence are looked at: a label regex over the whole of a 2 MB case
    # backtracks for minutes
    start = data.find(secret.encode())
    while start >= 0:
        if label.search(data[max(0, start - 80) : start]):
            return True
        start = data.find(secret.encode(), start + 1)
    return False


# words an ExecStart= line may hold that systemd's own rules treat specially
_SD_ODD_WORDS = [
    "%i",
    "%I",
    "%n",
    "%H",
    "%h",
    "%%",
    "90%2",
    "%",
    "100%",
    "%Z",
    "${VLLM_PORT}",
    "$VLLM_ARGS",
    "$VENV/bin/x",
    "${",
    "$",
    "$$",
    "${UNSET}",
    "${A B}",
    "\\;",
    ";",
    "\\x41",
    "\\u00e9",
    "\\q",
    "\\",
    "'",
    '"',
    "a\\ b",
    "--port=$PORT",
    "\\x",
    "\\777",
]
SYSTEMD_INSERTS = [
    b"\\\n",
    b"\r\n",
    b"%",
    b"%%",
    b"%q",
    b"${",
    b"$",
    b"'",
    b'"',
    b"\\",
    b"\x00",
    b"\x1b]0;t\x07",
    b"\n[Service]\n",
    b"\nExecStart=\n",
    b"\n#",
    b";",
    b"@",
    b"-",
    b"+!",
    b"=",
    b"\xe2\x80\x94",
    b"\n",
]


def systemd_case(rnd: random.Random, case_id: str) -> Case:
    """A service unit (templates after tests/data/real_cases_carriers3/*.service) with systemd's quoting,
    continuations, specifiers, prefixes and env files mutated; secrets in ``Environment=``, env files and
    ``--api-key``; markers behind every way a unit names a command or a shell."""
    files: dict[str, bytes] = {}
    secrets: list[str] = []
    markers: list[str] = []
    executables: list[str] = []
    fifos: list[str] = []

    def marker(how: str) -> str:
        name = f"MARK_{how}_{case_id}"
        markers.append(name)
        return f"{DIR}/{name}"

    framework = rnd.choice(["sglang", "vllm"])
    lines = ["[Unit]", "Description=LLM server", "After=network-online.target", "", "[Service]"]
    lines.append("Type=" + rnd.choice(["simple", "exec", "oneshot", "notify", "forking", ""]))
    if rnd.random() < 0.5:
        lines.append("User=" + rnd.choice(["root", "vllm", "0", "", "%u"]))
    if rnd.random() < 0.6:
        lines.append(
            "WorkingDirectory="
            + rnd.choice(
                [
                    "/opt/vllm",
                    "~",
                    "-/nonexistent",
                    "%h/app",
                    "%Z",
                    "%",
                    "",
                    "relative/dir",
                    f"{DIR}",
                    "/a b",
                    "/x" * 2000,
                    "-",
                    "~/x",
                ]
            )
        )
    env_names = ["VLLM_PORT", "MODEL", "VLLM_ARGS", "PORT"]
    for _ in range(rnd.randint(0, 4)):
        k = rnd.random()
        if k < 0.35:
            secret = new_secret(rnd)
            secrets.append(secret)
            name = rnd.choice(SECRET_VARS)
            lines.append("Environment=" + _sd_quote(rnd, f"{name}={secret}") + rnd.choice(["", " A=1"]))
        elif k < 0.7:
            words = [
                _sd_quote(rnd, f"{n}={rnd.choice(['8000', '/models/q', 'a b', '--tp 2', '', '%i', '$X'])}")
                for n in rnd.sample(env_names, rnd.randint(1, 3))
            ]
            lines.append("Environment=" + " ".join(words))
        else:
            lines.append("Environment=" + rnd.choice(["", "=x", "1A=b", "A", "'A=b", "A=\\x00", "A=%Q"]))
    for _ in range(rnd.randint(0, 3)):
        k = rnd.choice(["secret", "marker", "fifo", "zero", "huge", "missing", "dir", "odd"])
        optional = rnd.choice(["", "-"])
        if k == "secret":
            secret = new_secret(rnd)
            secrets.append(secret)
            name = f"app{len(files)}.env"
            quoted = rnd.choice([secret, f'"{secret}"', f"'{secret}'", f"{secret} # c", f"{secret}\\\n"])
            files[name] = f"# env\n{rnd.choice(SECRET_VARS)}={quoted}\nVLLM_PORT=8000\n".encode()
            path = rnd.choice([f"{DIR}/{name}", f"/etc/vllm/{name}"])
        elif k == "marker":
            name = f"run{len(files)}.env"
            files[name] = f"X=$(touch {marker('envfile')})\nY=`touch {marker('envtick')}`\n".encode()
            path = f"{DIR}/{name}"
        elif k == "fifo":
            fifos.append(f"pipe{len(fifos)}.env")
            path = f"{DIR}/{fifos[-1]}"
        elif k == "zero":
            path = rnd.choice(["/dev/zero", "/dev/urandom", "/dev/stdin", "/proc/self/fd/0"])
        elif k == "huge":
            name = f"big{len(files)}.env"
            files[name] = (b"A=" + b"x" * rnd.choice([10**5, 2 * 10**6]) + b"\n") * rnd.choice([1, 3])
            path = f"{DIR}/{name}"
        elif k == "missing":
            path = "/nonexistent/vllm.env"
        elif k == "dir":
            path = rnd.choice([DIR, "/", "/etc"])
        else:
            path = rnd.choice(["", "%h/.env", "%Z", "relative.env", "\x00", "a" * 5000])
        lines.append(f"EnvironmentFile={optional}{path}")
    # the launch
    if rnd.random() < 0.1:
        m = marker("interp")
        files["venv/bin/python3"] = f"#!/bin/sh\ntouch {m}\nexit 1\n".encode()
        executables.append("venv/bin/python3")
        exe = [
            f"{DIR}/venv/bin/python3",
            "-m",
            "sglang.launch_server" if framework == "sglang" else "vllm.entrypoints.openai.api_server",
        ]
    elif framework == "sglang":
        exe = rnd.choice(
            [["/usr/bin/python3", "-m", "sglang.launch_server"], ["python3", "-m", "sglang.launch_server"]]
        )
    else:
        exe = rnd.choice([["/opt/vllm/bin/vllm", "serve", "Qwen/Qwen3-8B"], ["vllm", "serve", "${MODEL}"]])
    words = list(exe)
    flags = schema_flags(framework)
    for _ in range(rnd.randint(0, 10)):
        f = rnd.choice(flags)
        words.append(f.name)
        if f.takes_value:
            words.append(_sd_quote(rnd, flag_value(rnd, f)))
        if rnd.random() < 0.2:
            words.append(rnd.choice(_SD_ODD_WORDS))
    if rnd.random() < 0.5:
        secret = new_secret(rnd)
        secrets.append(secret)
        flag = rnd.choice(SECRET_FLAGS[framework])
        words += rnd.choice([[flag, _sd_quote(rnd, secret)], [f"{flag}={secret}"]])
    prefix = "".join(rnd.sample("@-:+!", rnd.randint(0, 2))) if rnd.random() < 0.3 else ""
    style = rnd.choice(["one", "cont", "shell", "shell"])
    if style == "shell":
        m = marker(rnd.choice(["bashc", "subst"]))
        inner = rnd.choice([f"touch {m}; exec ", f"X=$(touch {m}); exec ", f"X=`touch {m}`; exec "])
        launch = f"/bin/{rnd.choice(['sh', 'bash'])} -c '{inner}{' '.join(words).replace(chr(39), '')}'"
    elif style == "cont":
        launch = " \\\n    ".join(words)
    else:
        launch = " ".join(words)
    lines.append(f"ExecStart={prefix}{launch}")
    if rnd.random() < 0.4:
        lines.append(f"ExecStartPre=/bin/sh -c 'touch {marker('pre')}'")
    if rnd.random() < 0.15:
        lines.append("ExecStart=" + rnd.choice(["", f"/bin/sh -c 'touch {marker('second')}'"]))
    lines += ["Restart=on-failure", "", "[Install]", "WantedBy=multi-user.target", ""]
    text = "\n".join(lines)
    op = rnd.choice(["none", "none", "crlf", "mutate", "huge", "control", "manycont"])
    if op == "crlf":
        text = text.replace("\n", "\r\n")
    elif op == "huge":
        text = text.replace(
            "ExecStart=",
            "ExecStart="
            + rnd.choice(["a", "%%", "\\\\", "'x' ", "${A}"]) * rnd.choice([10**4, 10**5, 5 * 10**5])
            + " ",
            1,
        )
    elif op == "control":
        text = text.replace("Description=LLM server", "Description=\x1b[2J\x07\x00\r" + "\x01" * 5)
    elif op == "manycont":
        text = text.replace("[Service]\n", "[Service]\n" + "X=1 \\\n" * rnd.choice([10**3, 10**5]), 1)
    data = text.encode("utf-8", "surrogateescape")
    if op == "mutate":
        data = mutate_bytes(rnd, data, rnd.randint(1, 8), SYSTEMD_INSERTS)
    name = rnd.choice(["vllm.service", "llm@a-b.service", "sglang@%i.service", "x.service"])
    opts = ["--no-resolve"] + (["--format", "json"] if rnd.random() < 0.6 else [])
    if rnd.random() < 0.5:
        opts.append("--no-shellcheck")
    if rnd.random() < 0.15:
        opts.append("--all-settings")
    whole = data + b"".join(files.values())
    files[name] = data
    return Case(
        "systemd",
        case_id,
        files,
        ["check", *opts, name],
        [
            s
            for s in secrets
            if labelled(s, data) or any(s.encode() in d for d in files.values() if d is not data)
        ],
        [m for m in markers if m.encode() in whole],
        executables,
        fifos,
    )


# ---------------------------------------------------------------- launch carriers: SkyPilot tasks

SKYPILOT_INSERTS = [
    b"\n",
    b": ",
    b"- ",
    b"'",
    b'"',
    b"{",
    b"[",
    b"&x ",
    b"*x",
    b"|\n",
    b"!!python/object/apply:os.system ",
    b"\t",
    b"\x00",
    b"\r\n",
    b"$(",
    b"`",
    b"${",
    b"\\\n",
    b"---\n",
    b"%YAML 9\n",
]


def skypilot_case(rnd: random.Random, case_id: str) -> Case:
    """A SkyPilot task (templates after tests/data/real_cases_carriers3/*.sky.yaml): ``envs:`` with
    non-string values, ``secrets:``, ``run:``/``setup:`` scripts with command substitutions writing markers,
    deep nesting, anchors and byte mutations."""
    secrets: list[str] = []
    markers: list[str] = []

    def marker(how: str) -> str:
        name = f"MARK_{how}_{case_id}"
        markers.append(name)
        return f"{DIR}/{name}"

    framework = rnd.choice(["sglang", "vllm"])
    out: list[str] = []
    if rnd.random() < 0.4:
        out += ["service:", "  readiness_probe: /health", "  replicas: 2"]
    out.append("envs:")
    out.append(
        "  MODEL_NAME: "
        + rnd.choice(
            [
                "Qwen/Qwen3-8B",
                "'a b'",
                "null",
                "~",
                "",
                "1.5",
                "[1, 2]",
                "{a: 1}",
                "yes",
                "0x10",
                "2026-01-01",
                "!!binary aGk=",
                "*nothere",
                "&a x",
            ]
        )
    )
    for _ in range(rnd.randint(0, 3)):
        out.append(
            f"  {rnd.choice(['TP', 'PORT', 'X', 'N', 'VLLM_ARGS'])}: "
            + rnd.choice(
                [
                    "2",
                    "8000",
                    "true",
                    "null",
                    "'--tp 2'",
                    "1e3",
                    ".inf",
                    "[]",
                    "{}",
                    "'$(touch " + marker("envsubst") + ")'",
                    "'%i'",
                ]
            )
        )
    if rnd.random() < 0.6:
        secret = new_secret(rnd)
        secrets.append(secret)
        out.append(
            f"  {rnd.choice(SECRET_VARS)}: {rnd.choice([secret, repr(secret), chr(34) + secret + chr(34)])}"
        )
    if rnd.random() < 0.5:
        out.append("secrets:")
        secret = new_secret(rnd)
        secrets.append(secret)
        out.append(f"  {rnd.choice(SECRET_VARS)}: {secret}")
        out.append("  OTHER_TOKEN: null")
    accel = rnd.choice(
        [
            "H100:8",
            "'{L4:1, A10G:1}'",
            "{L4: 1, A10G: 1}",
            "[A100:8, H100:8]",
            "H100:0.5",
            "H100:x",
            "null",
            "{}",
            "[]",
            "H100:" + "9" * 400,
        ]
    )
    out += ["resources:", f"  accelerators: {accel}", "  ports: 8000"]
    out.append("num_nodes: " + rnd.choice(["1", "2", "0", "-1", "x", "99999999999999999999", "1.5", "null"]))
    if rnd.random() < 0.7:
        out.append("setup: |")
        out.append("  pip install " + ("sglang" if framework == "sglang" else "vllm"))
        if rnd.random() < 0.5:
            out.append(f"  X=$(touch {marker('setup')})")
    flags = schema_flags(framework)
    words = (
        ["python", "-m", "sglang.launch_server", "--model-path", "$MODEL_NAME"]
        if framework == "sglang"
        else ["vllm", "serve", "$MODEL_NAME"]
    )
    for _ in range(rnd.randint(0, 8)):
        f = rnd.choice(flags)
        words.append(f.name)
        if f.takes_value:
            words.append(quote(rnd, flag_value(rnd, f)))
    if rnd.random() < 0.4:
        secret = new_secret(rnd)
        secrets.append(secret)
        words += [rnd.choice(SECRET_FLAGS[framework]), secret]
    if rnd.random() < 0.3:
        words += ["--tensor-parallel-size" if framework == "vllm" else "--tp", "$SKYPILOT_NUM_GPUS_PER_NODE"]
    run = ["run: |", "  echo start"]
    for how in rnd.sample(["subst", "backtick", "eval", "bashc", "trap", "arith"], rnd.randint(0, 3)):
        m = marker(how)
        run.append(
            "  "
            + {
                "subst": f"HEAD=$(touch {m}; echo x)",
                "backtick": f"HEAD=`touch {m}`",
                "eval": f'eval "touch {m}"',
                "bashc": f"bash -c 'touch {m}'",
                "trap": f"trap 'touch {m}' EXIT",
                "arith": f"N=$(( $(touch {m}; echo 1) + 1 ))",
            }[how]
        )
    if rnd.random() < 0.2:
        run.append('  if [ "$SKYPILOT_NODE_RANK" == "0" ]; then ray start --head; fi')
    run.append("  " + " \\\n    ".join(words))
    if rnd.random() < 0.2:
        run = ["run: " + rnd.choice(["null", "42", "[a, b]", "{a: 1}", "''", "|", ">\n  vllm serve m"])]
    out += run
    text = "\n".join(out) + "\n"
    op = rnd.choice(["none", "none", "deep", "anchors", "huge", "mutate", "crlf", "typo", "control"])
    if op == "deep":
        n = rnd.choice([50, 500, 1000, 3000])
        key = rnd.choice(["envs", "resources", "x_extra", "file_mounts"])
        text = text.replace("resources:\n", f"{key}: {deep_flow(rnd, n)}\nresources:\n", 1)
    elif op == "anchors":
        levels = ['a0: &a0 ["lol"]'] + [
            f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)
        ]
        bomb = "file_mounts:\n" + "\n".join("  " + lv for lv in levels) + "\n"
        text = bomb + text.replace("  ports: 8000", "  ports: *a8", 1 if rnd.random() < 0.5 else 0)
    elif op == "huge":
        text = text.replace(
            "  echo start", "  echo " + "a" * rnd.choice([10**5, 10**6]) + "\n  echo start", 1
        )
    elif op == "crlf":
        text = text.replace("\n", "\r\n")
    elif op == "typo":
        text = text.replace(
            rnd.choice(["resources:", "num_nodes:", "envs:", "setup:"]),
            rnd.choice(["resorces:", "num_node:", "env:", "set_up:"]),
            1,
        )
    elif op == "control":
        text = text.replace("echo start", "echo '\x1b]0;pwn\x07\x1b[2J'", 1)
    data = text.encode("utf-8", "surrogateescape")
    if op == "mutate":
        data = mutate_bytes(rnd, data, rnd.randint(1, 8), SKYPILOT_INSERTS)
    name = rnd.choice(["task.sky.yaml", "sky.yaml", "serve.yml"])
    opts = ["--no-resolve"] + (["--format", "json"] if rnd.random() < 0.6 else [])
    if rnd.random() < 0.5:
        opts.append("--no-shellcheck")
    if rnd.random() < 0.2:
        opts += ["--env", rnd.choice(["HF_TOKEN=" + (secrets[0] if secrets else "x"), "OTHER_TOKEN=", "X=1"])]
    return Case(
        "skypilot",
        case_id,
        {name: data},
        ["check", *opts, name],
        [s for s in secrets if labelled(s, data) or s in opts[-1]],
        [m for m in markers if m.encode() in data],
    )
