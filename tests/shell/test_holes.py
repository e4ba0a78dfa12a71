"""A `bash -c`/`srun bash -c`/ssh command string known but for some expansions (``"... --dist-init-addr
$head_ip:5000"`` with ``head_ip=$(hostname -I)``): the server in the rest of the string is read, the words
built from the unknown value are unknown with its reason (layers/shell/holes.py). Before, the whole string
was unknown and the report said no server start was found (SH019): a multi-node launch over SLURM or ssh
read nothing. Our own inputs, in the form of SGLang's multi-node docs (`--dist-init-addr HEAD:PORT`,
`--node-rank $SLURM_NODEID`); the bash side runs the same script with the unknown command defined."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell.holes import _quote_states, fill_holes
from tests.conftest import run_cli
from tests.shell.bash_oracle import analyzed

VALUE = "10.1.2.3"
SERVER = "python3 -m sglang.launch_server --model-path m"

# each script computes `ip` (and `port`) with a command argtrace does not run
CASES = {
    "double quoted": f'ip=$(hostip)\nbash -c "{SERVER} --dist-init-addr $ip:5000 --port 30000"',
    "single quoted, spliced": f"ip=$(hostip)\nbash -c '{SERVER} --dist-init-addr '\"$ip\"':5000 --port 1'",
    "inner single quotes": f"ip=$(hostip)\nbash -c \"{SERVER} --host '$ip' --port 30000\"",
    "inner double quotes": f'ip=$(hostip)\nbash -c "{SERVER} --host \\"$ip\\" --served-model-name x"',
    "inner ANSI-C quotes": f"ip=$(hostip)\nbash -c \"{SERVER} --served-model-name \\$'a$ip b' --port 1\"",
    "two holes": f'ip=$(hostip)\nport=$(hostip)\nbash -c "{SERVER} --dist-init-addr $ip:$port --port 30000"',
    "nohup and env": f'ip=$(hostip)\nnohup env A=1 bash -c "{SERVER} --host $ip --port 30000" &',
}


def bash_argv(script: str, tmp_path: Path) -> list[str]:
    """The server's argv as real bash runs the script, `hostip` printing VALUE."""
    shown = (
        'python3() { printf "%s\\n" "$@"; }\nexport -f python3\n'
        f"hostip() {{ echo {VALUE}; }}\n" + script + "\nwait\n"
    )
    done = subprocess.run(["bash", "-c", shown], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_rest_of_the_string_is_bash_s_and_the_value_s_words_are_unknown(
    name: str, tmp_path: Path
) -> None:
    script = CASES[name]
    (server,) = analyzed(script, tmp_path).servers
    ours = [w.text for w in server.argv[1:]]
    theirs = bash_argv(script, tmp_path)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs, strict=True):
        if VALUE in real:
            assert mine is None
        else:
            assert mine == real
    unknown = [w for w in server.argv if w.text is None]
    assert unknown and all("`$(hostip)`" in (w.origin.reason or "") for w in unknown)


def test_the_unknown_word_is_named_as_the_script_wrote_it(tmp_path: Path) -> None:
    (server,) = analyzed(CASES["double quoted"], tmp_path).servers
    (word,) = [w for w in server.argv if w.text is None]
    assert word.origin.expansion == "$ip:5000"
    assert word.origin.reason == (
        "command substitution `$(hostip)` runs only at run time (unquoted: it may also split into several "
        "words)"
    )
    (quoted,) = [
        w for w in analyzed(CASES["inner single quotes"], tmp_path).servers[0].argv if w.text is None
    ]
    assert quoted.origin.expansion == "'$ip'"
    assert quoted.origin.reason == "command substitution `$(hostip)` runs only at run time"


def test_srun_task_words_and_a_hole_together(tmp_path: Path) -> None:
    script = (
        "head_ip=$(srun --nodes=1 --ntasks=1 hostname --ip-address)\n"
        "srun --ntasks=2 --nodes=2 bash -c '\n"
        f"{SERVER} --tp 16 --nnodes 2 --node-rank $SLURM_NODEID \\\n"
        "  --dist-init-addr '\"$head_ip\"':5000 --port 30000'\n"
    )
    (server,) = analyzed(script, tmp_path).servers
    words = [(w.text, w.origin.expansion) for w in server.argv[1:]]
    assert words == [
        ("-m", "literal"),
        ("sglang.launch_server", "literal"),
        ("--model-path", "literal"),
        ("m", "literal"),
        ("--tp", "literal"),
        ("16", "literal"),
        ("--nnodes", "literal"),
        ("2", "literal"),
        ("--node-rank", "literal"),
        (None, "$SLURM_NODEID"),
        ("--dist-init-addr", "literal"),
        (None, "$head_ip:5000"),
        ("--port", "literal"),
        ("30000", "literal"),
    ]


def test_an_unquoted_unknown_string_is_still_not_read(tmp_path: Path) -> None:
    """`bash -c $CMD`: where the words of an unquoted unknown value end is not known: no hole is made."""
    result = analyzed(f'X=$(hostip)\nbash -c $X"{SERVER} --port 1"', tmp_path)
    assert result.servers == []


def test_quote_states_follow_bash_quoting() -> None:
    text = "a \x00 '\x00' \"\x00\" $'\x00' '\\' \x00 \"\\\" \x00\" \\' \x00"
    assert _quote_states(text) == ["", "'", '"', "$'", "", '"', ""]


def test_fill_holes_quotes_each_reference_as_its_place_is_quoted() -> None:
    code, unknown, written = fill_holes("a '\x00' \x00", (("$x", "why x"), ("$(y)", "why y")), first=2)
    assert code == "a ''\"${__argtrace_hole_2}\"'' ${__argtrace_hole_3}"
    assert unknown == {"__argtrace_hole_2": "why x", "__argtrace_hole_3": "why y"}
    assert written == {
        "'\"${__argtrace_hole_2}\"'": "$x",
        "${__argtrace_hole_2}": "$x",
        "${__argtrace_hole_3}": "$(y)",
    }


def test_ssh_reads_the_server_of_a_string_with_a_locally_computed_address(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(
        "#!/bin/bash\nhead_ip=$(hostname -I)\n"
        f'ssh node1 "{SERVER} --dist-init-addr $head_ip:5000 --tp 16 --nnodes 2 --port 30000"\n'
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", "launch.sh"], cwd=tmp_path).json
    (server,) = report["servers"]
    assert server["argv"] == [
        "python3", "-m", "sglang.launch_server", "--model-path", "m", "--dist-init-addr", None,
        "--tp", "16", "--nnodes", "2", "--port", "30000",
    ]  # fmt: skip
    codes = {f["code"]: f for f in report["findings"]}
    # the script sets head_ip: not "unset" (TP001, an error), but computed on this machine
    assert "TP001" not in codes
    assert codes["TP002"]["severity"] == "info"
    assert codes["TP002"]["message"] == (
        "`$head_ip` in the command for node1 is expanded on this machine (to '<computed locally>'), not on "
        "the node"
    )
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []


# a command kept in a variable first: the variable holds the text with its holes
VARIABLE_CASES = {
    "bash -c of a quoted variable": f'ip=$(hostip)\nCMD="{SERVER} --host $ip --port 1"\nbash -c "$CMD"',
    "eval of a quoted variable": f'ip=$(hostip)\nCMD="{SERVER} --host $ip --port 1"\neval "$CMD"',
    "eval of an unquoted variable": f'ip=$(hostip)\nCMD="{SERVER} --host $ip --port 1"\neval $CMD',
    "an unquoted variable run": f'ip=$(hostip)\nCMD="{SERVER} --dist-init-addr $ip:5000 --port 1"\n$CMD',
    "appended to": f'ip=$(hostip)\nCMD="{SERVER} --host $ip"\nCMD="$CMD --port 1"\nbash -c "$CMD"',
    "split in a server's words": f'ip=$(hostip)\nX="a $ip"\n{SERVER} --served-model-name $X --port 1',
}


@pytest.mark.parametrize("name", sorted(VARIABLE_CASES))
def test_a_variable_keeps_the_holes_of_its_text(name: str, tmp_path: Path) -> None:
    script = VARIABLE_CASES[name]
    (server,) = analyzed(script, tmp_path).servers
    ours = [w.text for w in server.argv[1:]]
    theirs = bash_argv(script, tmp_path)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs, strict=True):
        assert mine is None if VALUE in real else mine == real


def test_a_variable_assigned_again_forgets_the_old_holes(tmp_path: Path) -> None:
    script = f'ip=$(hostip)\nCMD="{SERVER} --host $ip --port 1"\nCMD=$(hostip)\nbash -c "$CMD"'
    assert analyzed(script, tmp_path).servers == []
