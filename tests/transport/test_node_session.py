"""What sshd gives the command it runs on a node: ``USER``/``LOGNAME`` the login user, ``HOME`` that user's
home in the node's passwd, and the command starts there (OpenSSH session.c do_setup_env).

argtrace used to take a user it was not told as "user" and its home as ``/home/user``: ``--download-dir
$HOME/models`` on the node read as ``/home/user/models``, stated as known, and the server's directory too.
Only root's home is the same on every node; the others are unknown, with the reason named."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import run_cli

SERVER = "/opt/venv/bin/python -m sglang.launch_server --model-path /models/qwen"


def check(script: str) -> Any:
    result = run_cli(["check", "--format", "json", "--clean-env", "--no-resolve", "-c", script])
    assert result.stdout.startswith("{"), result.stderr
    return result.json


@pytest.mark.parametrize(
    ("destination", "expected"),
    [
        (
            "gpu1",
            (
                None,
                "the home directory of the login user of `ssh gpu1` (no user is given: ssh's default for the "
                "node) (unquoted: it may also split into several words)",
                None,
            ),
        ),
        (
            "alice@gpu1",
            (
                None,
                "the home directory of alice in the node's passwd (unquoted: it may also split into several "
                "words)",
                None,
            ),
        ),
        ("root@gpu1", ("/root", None, "/root")),
    ],
)
def test_home_on_the_node(destination: str, expected: tuple[str | None, str | None, str | None]) -> None:
    out = check(f"ssh {destination} '{SERVER} --served-model-name $HOME'")
    (server,) = out["servers"]
    word = server["words"][-1]
    assert (word["text"], word.get("reason"), server["cwd"]) == expected


def test_the_login_user_named_is_known() -> None:
    out = check(f"ssh -l alice gpu1 '{SERVER} --served-model-name $USER-$LOGNAME'")
    (server,) = out["servers"]
    assert server["argv"][-1] == "alice-alice"
