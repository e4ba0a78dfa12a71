"""``argtrace --host NODE run``: the note about the node's ``~/.bashrc`` (bash sources it over ssh)."""

from __future__ import annotations

import pytest

from argtrace.probe.runner import startup_files_note

SSH = {"SSH_CLIENT": "127.0.0.1 53606 22", "PATH": "/usr/bin:/bin"}


def test_a_non_interactive_ssh_session_environment_gets_the_note() -> None:
    assert startup_files_note({**SSH, "SHLVL": "0"}, "gpu1", stubs=True) == (
        "bash on gpu1 may source ~/.bashrc before the launch (SSH_CLIENT is set and SHLVL is 0, as for "
        "`ssh gpu1 bash SCRIPT` with Debian's or Ubuntu's bash); a stubbed command it runs (rm, sleep...) is "
        "recorded, not run: e.g. a `pyenv rehash` lock is left behind. `--env SHLVL=1` starts the launch as "
        "from a shell on the node"
    )
    assert startup_files_note(SSH, "gpu1", stubs=True) is not None  # SHLVL unset: level 0


@pytest.mark.parametrize(
    ("env", "node", "stubs"),
    [
        ({**SSH, "SHLVL": "1"}, "gpu1", True),  # started from a shell on the node
        ({**SSH, "SHLVL": "0"}, None, True),  # a local run
        ({**SSH, "SHLVL": "0"}, "gpu1", False),  # --no-stubs: rm runs for real
        ({"PATH": "/usr/bin", "SHLVL": "0"}, "gpu1", True),  # not an ssh session's environment
    ],
)
def test_no_note(env: dict[str, str], node: str | None, stubs: bool) -> None:
    assert startup_files_note(env, node, stubs=stubs) is None
