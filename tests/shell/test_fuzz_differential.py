"""Random scripts from a small grammar of the constructs launch scripts use, run by real bash with the
recorders on PATH; the static prediction must match whenever it claims to know every word."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from argtrace.frameworks.detect import detect_server
from argtrace.layers.shell import ScriptSource, analyze_script
from tests.shell.recorder import fold_repeats, make_recorders, read_records

VALS = [
    "a",
    "b c",
    "",
    "x*y",
    "--flag",
    "1",
    "a:b",
    " lead",
    "trail ",
    "q'u",
    'd"q',
    "back\\slash",
    "$HOME",
    "\u00e9",
    "t\tab",
    "a,b",
    "{a,b}",
    "~",
]
NAMES = ["A", "B", "C", "D"]


def quote(rnd: random.Random, v: str) -> str:
    r = rnd.random()
    if r < 0.3:
        return "'" + v.replace("'", "'\\''") + "'"
    if r < 0.6:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'
    if r < 0.8:
        return "$'" + v.replace("\\", "\\\\").replace("'", "\\'").replace("\t", "\\t") + "'"
    return "".join("\\" + ch if not ch.isalnum() else ch for ch in v) if v else "''"


def expansion(rnd: random.Random) -> str:
    n = rnd.choice(NAMES)
    return rnd.choice(
        [
            f"${n}",
            f"${{{n}}}",
            f'"${n}"',
            f"${{{n}:-dflt}}",
            f"${{{n}:-x y}}",
            f'"${{{n}:+set}}"',
            f"${{#{n}}}",
            f'"${{{n}#?}}"',
            f'"${{{n}%?}}"',
            f'"${{{n}//a/Z}}"',
            f'"${{{n}^^}}"',
            f'"${{{n}:1:2}}"',
            '"$@"',
            "$@",
            '"$*"',
            "$*",
            "$#",
            '"$1"',
            "$2",
            '"${arr[@]}"',
            "${arr[@]}",
            '"${arr[1]}"',
            '"${#arr[@]}"',
            f"pre${n}post",
            f'"pre${n}"post',
            "$((3+4*2))",
            "$((N * 2 + 1))",
            '"$(echo hi)"',
            '"$(f2 x)"',
            f'"${{{n}:=assigned}}"',
            "$((i++))",
            '"${N}0"',
        ]
    )


def statement(rnd: random.Random) -> str:
    n = rnd.choice(NAMES)
    v = quote(rnd, rnd.choice(VALS))
    return rnd.choice(
        [
            f"{n}={v}",
            f"{n}={v}",
            f"export {n}={v}",
            f"local_free={v}",
            f"arr=({' '.join(quote(rnd, rnd.choice(VALS)) for _ in range(rnd.randint(0, 3)))})",
            f"arr+=({v})",
            "shift",
            f"set -- {' '.join(quote(rnd, rnd.choice(VALS)) for _ in range(rnd.randint(0, 3)))}",
            f"IFS={quote(rnd, rnd.choice([' ', ':', ',', ' :', '']))}",
            "unset IFS",
            f'if [ "${n}" = {v} ]; then {n}=then; elif [[ -n ${n} ]]; then {n}=elif; else {n}=else; fi',
            f'case "${n}" in a|b*) {n}=case1;; *"c"*) {n}=case2;; \'\') {n}=empty;; esac',
            f"unset {n}",
            f"{n}={expansion(rnd)}",
            f'f() {{ local x="$1"; {n}="$x$#"; }}; f {v} 2',
            "for i in 1 2 3; do N=$((N + i)); done",
            "while [ ${N:-0} -lt 5 ]; do N=$((${N:-0} + 2)); done",
            "((N += 3))",
            f"printf -v {n} '%s-%s' x y",
            f'[ -z "${n}" ] && {n}=was_empty || {n}=not_empty',
            f"declare -i {n}=4*3",
            f"read -r {n} B <<< {v}",
            f"IFS=, read -ra arr <<< {v}",
            f"IFS=: read -r {n} C <<< {v}",
            f"readonly R{n}={v}",
            'f2() { echo "<$1>"; }',
        ]
    )


def script(rnd: random.Random) -> str:
    lines = ["#!/bin/bash", "N=1; i=0"] + [statement(rnd) for _ in range(rnd.randint(1, 8))]
    words = " ".join(expansion(rnd) for _ in range(rnd.randint(1, 6)))
    pre = rnd.choice(["", "X=1 ", "env Y=2 ", "nohup ", "exec ", "A=pre "])
    lines.append(f"{pre}python3 -m sglang.launch_server {words}")
    return "\n".join(lines) + "\n"


def compare(text: str, args: list[str], tmp: Path) -> tuple[list[str], list[str]] | None:
    work = tmp / "w"
    work.mkdir()
    bin_dir, rec = tmp / "bin", tmp / "rec"
    make_recorders(bin_dir, rec)
    (work / "s.sh").write_text(text)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    subprocess.run(
        ["/bin/bash", "s.sh", *args], cwd=work, env=env, capture_output=True, timeout=20, check=False
    )
    records = read_records(rec, settle=0.15)
    result = analyze_script(
        ScriptSource("s.sh", text.encode(), work / "s.sh"),
        args,
        env,
        arg0="s.sh",
        run_shellcheck=False,
        cwd=str(work),
    )
    pred = []
    for s in result.servers:
        words = [w.text for w in s.argv]
        env_pred = {k: v.value for k, v in s.env.items() if k != "_"}
        if None in words or None in env_pred.values():
            return None  # an honest "unknown": nothing to compare
        d = detect_server([w or "" for w in words])
        ci = d.command_index if d else 0
        pred.append(json.dumps([Path(words[ci] or "").name, words[ci + 1 :], env_pred], sort_keys=True))
    real = [
        json.dumps([r.name, r.argv, {k: v for k, v in r.env.items() if k != "_"}], sort_keys=True)
        for r in records
    ]
    repeated = {p for p, s in zip(pred, result.servers, strict=True) if s.repeated}
    return sorted(pred), sorted(fold_repeats(real, repeated))


N_CASES = int(os.environ.get("ARGTRACE_FUZZ_CASES", "40"))
FIRST_SEED = int(os.environ.get("ARGTRACE_FUZZ_SEED", "0"))


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + N_CASES))
def test_random_script_matches_bash(seed: int, tmp_path: Path) -> None:
    rnd = random.Random(seed)
    text = script(rnd)
    args = [rnd.choice(VALS) for _ in range(rnd.randint(0, 3))]
    got = compare(text, args, tmp_path)
    if got is None:
        pytest.skip("the prediction says some word is not known statically")
    pred, real = got
    assert pred == real, text
