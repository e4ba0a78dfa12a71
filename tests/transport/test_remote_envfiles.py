"""``argtrace --host NODE check``: env files and a framework's ``--config`` YAML are the node's files.

The private sshd runs on this machine, so the node's files would be this machine's files and a local read
could not be told from a remote one. These tests therefore run argtrace inside its own mount namespace
(``unshare --mount``, a real kernel mount namespace) in which the node's directory is covered by a decoy
directory holding other values: argtrace itself sees the decoy, while the ssh session (started by the sshd,
outside the namespace) sees the node's files. A value that was read locally shows the decoy's value and
fails the test. Skipped where mount namespaces are not allowed (an unprivileged container).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.needs import unmet
from tests.transport.sshd import SshServer

MOUNT = (
    'mount --bind "$1" "$2" || exit 97\n'  # argtrace's view of the node's directory: the decoy
    "shift 2\n"
    'exec "$@"\n'
)


def _covered(path: Path, cover: Path, *cmd: str) -> list[str]:
    """The words that run ``cmd`` in a mount namespace of its own where ``cover`` is bound over ``path``."""
    unshare = ["unshare", "--mount", "--propagation", "private"]
    return [*unshare, "sh", "-c", MOUNT, "sh", str(cover), str(path), *cmd]


def _namespaces_work(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    a, b = tmp_path / "ns-probe-a", tmp_path / "ns-probe-b"
    a.mkdir()
    b.mkdir()
    (a / "seen").write_text("decoy")
    probe = subprocess.run(_covered(b, a, "cat", str(b / "seen")), capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout == "decoy" and not (b / "seen").exists()


@pytest.fixture
def views(tmp_path: Path) -> tuple[Path, Path]:
    """(node, decoy): the directory the node (the ssh session) sees, and what argtrace sees there."""
    if not _namespaces_work(tmp_path):
        pytest.skip("mount namespaces (unshare --mount) are not available here")
    node = tmp_path / "node it's $HOME dir"
    decoy = tmp_path / "decoy"
    node.mkdir()
    decoy.mkdir()
    return node, decoy


def _run_in_decoy_view(node: Path, decoy: Path, argv: list[str]) -> tuple[int, Any, str]:
    """``argtrace ARGV`` with ``node`` covered by ``decoy`` for argtrace (not for the ssh session)."""
    cli = [sys.executable, "-c", "import sys; from argtrace.cli import main; sys.exit(main(sys.argv[1:]))"]
    proc = subprocess.run(
        _covered(node, decoy, *cli, *argv),
        capture_output=True,
        text=True,
        env={**os.environ, "ARGTRACE_DEBUG": "1"},
        timeout=300,
    )
    assert proc.returncode != 97, proc.stderr
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = None
    return proc.returncode, report, proc.stderr


# ------------------------------------------------------------------------------------------ compose


COMPOSE = (
    "# modelled on vLLM's docs (deployment/docker) and av/harbor's compose files: env_file next to it\n"
    "services:\n"
    "  sglang:\n"
    "    image: lmsysorg/sglang:latest\n"
    "    env_file:\n"
    "      - sglang.env\n"
    "      - path: ./gpu node's $$HOME.env\n"
    "      - path: ./local.env\n"
    "        required: false\n"
    "    environment:\n"
    "      SGLANG_LOG_LEVEL: debug\n"
    "    command: python3 -m sglang.launch_server --model-path /models/qwen --port 30000\n"
)


def test_remote_compose_env_files_are_the_nodes(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    for view, spec, token in ((node, "1", "hf_" + "n" * 24), (decoy, "0", "hf_" + "d" * 24)):
        (view / "compose.yaml").write_text(COMPOSE)
        (view / "sglang.env").write_text(
            f'SGLANG_ENABLE_SPEC_V2="{spec}"\nHF_TOKEN={token}\nSGLANG_LOG_LEVEL=info\n'
        )
        (view / "gpu node's $HOME.env").write_text(
            'VIEW="' + view.name.replace("$", "\\$") + '"\nDERIVED=${SGLANG_ENABLE_SPEC_V2}-x\n'
        )
    status, report, stderr = _run_in_decoy_view(
        node,
        decoy,
        [*sshd.cli_prefix(), "check", "--format", "json", "--no-resolve", str(node / "compose.yaml")],
    )
    assert status in (0, 1), stderr
    env = report["process"]["env"]
    assert {k: env[k] for k in ("SGLANG_ENABLE_SPEC_V2", "VIEW", "DERIVED", "SGLANG_LOG_LEVEL")} == {
        "SGLANG_ENABLE_SPEC_V2": "1",
        "VIEW": node.name,
        "DERIVED": "1-x",
        "SGLANG_LOG_LEVEL": "debug",  # environment: wins over env_file:
    }
    assert env["HF_TOKEN"].startswith("<redacted:")
    assert "hf_" + "n" * 24 not in json.dumps(report)
    files = next(h for h in report["transport"]["hops"] if h["via"] == "compose")["env_files"]
    assert [(f["path"], f["read"], f["skipped"]) for f in files] == [
        (f"{node}/sglang.env", True, None),
        (f"{node}/gpu node's $HOME.env", True, None),
        (f"{node}/local.env", False, "missing, and `required: false`: compose ignores it"),
    ]
    assert [f["code"] for f in report["findings"] if f["code"].startswith("TP01")] == []


def test_remote_compose_env_file_missing_on_the_node(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    (node / "compose.yaml").write_text(COMPOSE)
    (node / "sglang.env").write_text("SGLANG_ENABLE_SPEC_V2=1\n")
    (decoy / "compose.yaml").write_text(COMPOSE)
    (decoy / "sglang.env").write_text("SGLANG_ENABLE_SPEC_V2=1\n")
    (decoy / "gpu node's $HOME.env").write_text("VIEW=decoy\n")  # present locally, missing on the node
    status, report, stderr = _run_in_decoy_view(
        node,
        decoy,
        [*sshd.cli_prefix(), "check", "--format", "json", "--no-resolve", str(node / "compose.yaml")],
    )
    assert status == 1, stderr
    found = [
        (f["code"], f["severity"], f["at"], f["message"]) for f in report["findings"] if f["code"] == "TP016"
    ]
    path = f"{node}/gpu node's $HOME.env"
    assert found == [
        (
            "TP016",
            "error",
            f"{node}/compose.yaml:7",
            f"service sglang's env_file {_shown(path)}: no such file on {sshd.host}; docker compose stops "
            "before creating the container, so the server never starts",
        )
    ]
    assert "VIEW" not in report["process"]["env"]


# `check` as the SGLang config-file tests run it: JSON, the bundled 0.5.10.post1, no resolver or shellcheck
SGLANG_CHECK = "check --format json --no-resolve --no-shellcheck --framework-version 0.5.10.post1".split()


def _shown(word: str) -> str:
    from argtrace.layers.transport import _show

    return _show(word)


# ------------------------------------------------------------------------------------------- docker


def test_remote_docker_env_file_is_the_nodes(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    for view, value in ((node, "node"), (decoy, "decoy")):
        (view / "run.env").write_text(f"# docker keeps quotes\nVLLM_LOGGING_LEVEL='{value}'\nSEEN={value}\n")
    script = node / "launch.sh"
    script.write_text(
        f"#!/bin/bash\ndocker run --env-file {_shown(str(node / 'run.env'))} -e SEEN=flag "
        "vllm/vllm-openai:latest Qwen/Qwen3-8B\n"
    )
    shutil.copy(script, decoy / "launch.sh")
    argv = ["check", "--format", "json", "--no-resolve", "--no-shellcheck"]
    status, report, stderr = _run_in_decoy_view(node, decoy, [*sshd.cli_prefix(), *argv, str(script)])
    assert status in (0, 1), stderr
    env = report["process"]["env"]
    assert (env["VLLM_LOGGING_LEVEL"], env["SEEN"]) == ("'node'", "flag")  # quotes kept; -e wins
    # a relative path after `cd`: docker opens it in the directory the script went to, on the node
    moved = node / "moved.sh"
    moved.write_text(
        f"#!/bin/bash\ncd {_shown(str(node))}\n"
        "docker run --env-file run.env vllm/vllm-openai:latest Qwen/Qwen3-8B\n"
    )
    shutil.copy(moved, decoy / "moved.sh")
    status, report, stderr = _run_in_decoy_view(node, decoy, [*sshd.cli_prefix(), *argv, str(moved)])
    assert status in (0, 1), stderr
    assert report["process"]["env"]["VLLM_LOGGING_LEVEL"] == "'node'"
    assert "TP016" not in [f["code"] for f in report["findings"]]
    hop = next(h for h in report["transport"]["hops"] if h["via"] == "docker run")
    assert [(f["path"], f["read"], f["skipped"]) for f in hop["env_files"]] == [
        (str(node / "run.env"), True, None)
    ]


def test_remote_docker_env_file_missing_on_the_node(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    (decoy / "run.env").write_text("SEEN=decoy\n")
    script = node / "launch.sh"
    path = _shown(str(node / "run.env"))
    script.write_text(f"#!/bin/bash\ndocker run --env-file {path} vllm/vllm-openai:latest Qwen/Qwen3-8B\n")
    shutil.copy(script, decoy / "launch.sh")
    argv = ["check", "--format", "json", "--no-resolve", "--no-shellcheck"]
    status, report, stderr = _run_in_decoy_view(node, decoy, [*sshd.cli_prefix(), *argv, str(script)])
    assert status == 1, stderr
    found = [(f["severity"], f["at"], f["message"]) for f in report["findings"] if f["code"] == "TP016"]
    assert found == [
        (
            "error",
            f"{script}:2:1",
            f"docker run --env-file {path}: no such file on {sshd.host}; docker refuses to create the "
            "container, so the server never starts",
        )
    ]
    assert "SEEN" not in report["process"]["env"]


# ------------------------------------------------------------------------------------------ --config


def test_remote_framework_config_is_the_nodes(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    name = "node cfg $X.yaml"
    (node / name).write_text("port: 31234\nmem-fraction-static: 0.71\n")
    (decoy / name).write_text("port: 30000\nmem-fraction-static: 0.5\n")
    script = node / "launch.sh"
    script.write_text(
        "#!/bin/bash\n"
        f"cd {_shown(str(node))}\n"
        f"python3 -m sglang.launch_server --model-path /models/qwen --config '{name}'\n"
    )
    shutil.copy(script, decoy / "launch.sh")
    status, report, stderr = _run_in_decoy_view(node, decoy, [*sshd.cli_prefix(), *SGLANG_CHECK, str(script)])
    assert status in (0, 1), stderr
    settings = {s["name"]: s for s in report["settings"]}
    assert (settings["port"]["effective"], settings["mem_fraction_static"]["effective"]) == (31234, 0.71)
    assert [f for f in report["findings"] if f["code"].startswith("PA") and "--config" in f["message"]] == []
    # locally (the decoy is what this machine has there) the same script reads the local file
    status, local, stderr = _run_in_decoy_view(node, decoy, [*SGLANG_CHECK, str(script)])
    assert status in (0, 1), stderr
    local_settings = {s["name"]: s for s in local["settings"]}
    assert local_settings["port"]["effective"] == 30000


def test_remote_framework_config_missing_on_the_node(sshd: SshServer, views: tuple[Path, Path]) -> None:
    node, decoy = views
    (decoy / "only here.yaml").write_text("port: 30000\n")
    script = node / "launch.sh"
    config = _shown(str(node / "only here.yaml"))
    script.write_text(f"#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --config {config}\n")
    shutil.copy(script, decoy / "launch.sh")
    status, report, stderr = _run_in_decoy_view(node, decoy, [*sshd.cli_prefix(), *SGLANG_CHECK, str(script)])
    assert status == 1, stderr
    path = str(node / "only here.yaml")
    found = [(f["severity"], f["message"]) for f in report["findings"] if "--config" in f["message"]]
    assert found == [
        ("error", f"--config {path}: no such file on {sshd.host}: Config file not found: {path}"),
    ]


# ------------------------------------------------------------------------------------ --config, resolver

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "llama-3.1-8b" / "config.json"
RESOLVER = "sglang==0.5.10.post1"


def _resolving(report: Any, name: str) -> tuple[Any, list[tuple[str, Any]]]:
    setting = next(s for s in report["settings"] if s["name"] == name)
    return setting["effective"], [(h["layer"], h["value"]) for h in setting["history"]]


@pytest.mark.skipif(
    bool(unmet([f"resolver:{RESOLVER}"])), reason=f"needs the {RESOLVER} resolver environment"
)
def test_remote_framework_config_reaches_the_resolver(sshd: SshServer, views: tuple[Path, Path]) -> None:
    """The resolver runs here, in a temporary directory, and reads --config again: it gets the copy of the
    node's file (the decoy, which argtrace would see at that path, says port 30000)."""
    node, decoy = views
    for view, port in ((node, 31234), (decoy, 30000)):
        (view / "model").mkdir()
        shutil.copy(MODEL, view / "model" / "config.json")
        (view / "serve cfg $X.yaml").write_text(f"port: {port}\nmem-fraction-static: 0.71\n")
        (view / "launch.sh").write_text(
            f"#!/bin/bash\ncd {_shown(str(node))}\n"
            f"python3 -m sglang.launch_server --model-path {_shown(str(node / 'model'))} "
            "--config 'serve cfg $X.yaml'\n"
        )
    argv = ["check", "--format", "json", "--no-shellcheck", "--framework-version", "0.5.10.post1"]
    status, report, stderr = _run_in_decoy_view(
        node, decoy, [*sshd.cli_prefix(), *argv, str(node / "launch.sh")]
    )
    assert status in (0, 1), stderr
    assert report["resolution"]["status"] == "ok", report["resolution"]
    assert _resolving(report, "port") == (31234, [("process", "31234"), ("parser", 31234)])
    assert [f for f in report["findings"] if f["code"] in ("RS001", "RS003", "PA018")] == []


@pytest.mark.skipif(
    bool(unmet([f"resolver:{RESOLVER}"])), reason=f"needs the {RESOLVER} resolver environment"
)
def test_relative_framework_config_reaches_the_resolver(tmp_path: Path) -> None:
    """Locally too: a relative --config is the server's directory's file, not the resolver's temporary one
    (SGLang raised "Config file not found: serve.yaml" there, reported as RS001, before)."""
    directory = tmp_path / "it's $X dir"
    directory.mkdir()
    (directory / "serve.yaml").write_text("port: 31234\n")
    script = tmp_path / "launch.sh"
    script.write_text(
        f"#!/bin/bash\ncd {_shown(str(directory))}\n"
        "python3 -m sglang.launch_server --model-path /m --config serve.yaml\n"
    )
    argv = ["check", "--format", "json", "--no-shellcheck", "--framework-version", "0.5.10.post1"]
    result = run_cli([*argv, "--model-config", str(MODEL), str(script)])
    assert result.status in (0, 1), result.stderr
    report = result.json
    assert report["resolution"]["status"] == "ok", report["resolution"]
    assert _resolving(report, "port") == (31234, [("process", "31234"), ("parser", 31234)])
    assert [f["code"] for f in report["findings"] if f["code"] == "RS001"] == []
