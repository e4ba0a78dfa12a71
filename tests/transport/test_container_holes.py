"""A container's ``bash -c STRING`` whose string the local shell knows but for some values
(``docker run IMAGE bash -c "python3 -m sglang.launch_server ... --host $ip"`` with ``ip=$(hostname -I)``):
the container's shell still runs the rest of the string (layers/shell/holes.py, as ``srun bash -c`` and
``ssh`` read it since session 28).

Before (session 28) the container reader took known words only: the unknown string stood as the empty word,
the hop showed ``bash -c ''`` and the report said "no server start found" (SH019). Our own inputs, in the
form of the commands of SGLang's and vLLM's Docker and Kubernetes guides."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import run_cli

IP = "ip=$(hostname -I | awk '{print $1}')\n"
REASON = "command substitution `$(hostname -I | awk '{print $1}')` runs only at run time"
SERVER = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host $ip --port 30000"
ENTRY = "/opt/nvidia/nvidia_entrypoint.sh"  # the image's, from the generated image table
KNOWN = [
    "python3",
    "-m",
    "sglang.launch_server",
    "--model-path",
    "Qwen/Qwen3-8B",
    "--host",
    None,
    "--port",
    "30000",
]


def check(script: str) -> Any:
    result = run_cli(["check", "--format", "json", "--clean-env", "--no-resolve", "-c", script])
    assert result.stdout.startswith("{"), result.stderr
    return result.json


@pytest.mark.parametrize(
    ("carrier", "argv_before", "via"),
    [
        ("docker run --gpus all --rm lmsysorg/sglang:v0.5.2", [ENTRY], "docker run"),
        ("sudo docker run --gpus all --ipc host lmsysorg/sglang:v0.5.2", [ENTRY], "docker run"),
        ("podman run --rm --entrypoint bash --ipc=host lmsysorg/sglang:v0.5.2", ["bash"], "docker run"),
        ("docker exec -it sglang", [], "docker exec"),
        ("kubectl exec -it sglang-0 --", [], "kubectl exec"),
        ('kubectl exec -it "$POD" --', [], "kubectl exec"),
    ],
)  # fmt: skip
def test_the_container_s_shell_runs_the_string_with_the_value_unknown(
    carrier: str, argv_before: list[str], via: str
) -> None:
    shell = [] if "--entrypoint bash" in carrier else ["bash"]
    out = check(f'{IP}{carrier} {" ".join(shell)} -c "{SERVER}"')
    (server,) = out["servers"]
    assert server["argv"] == KNOWN
    word = server["words"][6]
    assert (word["expansion"], word["reason"]) == (
        "$ip",
        f"{REASON} (unquoted: it may also split into several words)",
    )
    (hop,) = [h for h in out["transport"]["hops"] if h["via"] == via]
    # the hop shows the string with the value as the script wrote it, not the empty word argtrace held
    assert hop["argv"] == [*argv_before, *shell, "-c", SERVER]
    codes = [f["code"] for f in out["findings"]]
    assert "SH019" not in codes
    assert codes.count("PA013") == 1  # the value of --host, not known: one note
    assert not [
        f for f in out["findings"] if "__argtrace" in f["message"] or "__argtrace" in str(f["evidence"])
    ]


def test_a_value_in_single_quotes_of_the_string_is_one_word_named_as_written() -> None:
    out = check(
        f"{IP}docker exec sg bash -c \"python3 -m sglang.launch_server --model-path '$ip' --port 30000\""
    )
    (server,) = out["servers"]
    assert server["argv"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        None,
        "--port",
        "30000",
    ]
    assert (server["words"][4]["expansion"], server["words"][4]["reason"]) == ("'$ip'", REASON)
    (pa013,) = [f for f in out["findings"] if f["code"] == "PA013"]
    (sh018,) = pa013["consequences"]  # one unknown word, said once: under the finding that names its flag
    assert sh018["message"] == f"argument 4 of the server (`'$ip'`) is not known statically: {REASON}"


def test_the_flags_of_the_container_s_server_are_checked() -> None:
    # read, the server's words meet the parser: `--tp` is an abbreviation argparse takes silently
    out = check(f'{IP}docker run --gpus all --shm-size 32g lmsysorg/sglang:v0.5.2 bash -c "{SERVER} --tp 2"')
    pa007 = next(f for f in out["findings"] if f["code"] == "PA007")
    assert pa007["message"] == (
        "--tp is not a sglang 0.5.2 flag: argparse silently takes it as an abbreviation of --tp-size"
    )


def test_a_string_not_known_at_all_starts_nothing_known() -> None:
    out = check('CMD=$(cat cmd.txt)\ndocker run --gpus all lmsysorg/sglang:v0.5.2 bash -c "$CMD"')
    assert out["servers"] == []
    assert "SH019" in [f["code"] for f in out["findings"]]


def test_over_ssh_a_value_in_single_quotes_is_named_as_written() -> None:
    # the ssh hop reads holes as the container reader does; inside single quotes of the string a hole is
    # `'"${NAME}"'` in the node's text, and was shown so (`'"$M"'`) before both shared one renamer
    out = check(
        "M=$(cat /etc/model_name)\n"
        "ssh node1 \"python3 -m sglang.launch_server --model-path '$M' --port 30000\""
    )
    (server,) = out["servers"]
    assert server["words"][4]["expansion"] == "'$M'"
    (pa013,) = [f for f in out["findings"] if f["code"] == "PA013"]
    (sh018,) = pa013["consequences"]
    assert sh018["message"] == (
        "argument 4 of the server (`'$M'`) is not known statically: command substitution "
        "`$(cat /etc/model_name)` runs only at run time"
    )
