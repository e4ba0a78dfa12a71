"""Command wrappers in front of a container launch, and images whose program starts the server itself.

Each expectation follows a documented rule, cited where it is used:
* sudo(8)/sudoers(5) "Command environment": with ``env_reset`` the command gets a new environment holding
  only the ``env_keep``/``env_check`` names of the caller's (Debian 12's sudo -V: data/sudo_defaults.json);
  ``-E`` keeps the caller's, ``--preserve-env=LIST`` the names listed; ``sudo VAR=value cmd`` sets VAR;
* env(1): ``-i`` starts with an empty environment, ``-u NAME`` removes NAME, ``NAME=VALUE`` sets it;
* docker run reference, "--env": ``-e NAME`` without a value passes the docker client's own NAME, and
  nothing when the client has none;
* GPUStack's worker hands the container's environment to the vLLM it starts (gpustack/worker/backends/
  base.py: ``os.environ.copy()`` in 0.4.0-0.7.1, a filter of ``os.environ`` in 2.x; data/server_images.json,
  generated from the wheels by scripts/gen_server_images.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.server_images import server_image
from argtrace.layers.transport.wrapped import find_wrapped_carrier
from tests.conftest import run_cli

IMAGE = "vllm/vllm-openai:v0.11.0"  # entrypoint `python3 -m vllm.entrypoints.openai.api_server` (images.py)


@pytest.fixture(autouse=True)
def clean_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name in ("HF_TOKEN", "VLLM_USE_V1", "VLLM_LOGGING_LEVEL"):
        monkeypatch.delenv(name, raising=False)


def check(command: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "-c", command])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def codes(report: dict[str, Any], code: str) -> list[tuple[str, str]]:
    return [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == code]


@pytest.mark.parametrize(
    ("command", "wrappers"),
    [
        (f"sudo docker run --gpus all {IMAGE} --model m", ["sudo"]),
        # sudo(8): -u USER and -g GROUP take a value, -E and -H none
        (f"sudo -E -H -u root -g docker docker run {IMAGE} --model m", ["sudo"]),
        # timeout(1): -k DURATION takes a value, then the DURATION operand
        (f"nohup timeout -k 5 2h docker run {IMAGE} --model m", ["nohup", "timeout"]),
        (f"nice -n 5 numactl --cpunodebind=0 podman run {IMAGE} --model m", ["nice", "numactl"]),
        (f"env -u X VLLM_LOGGING_LEVEL=DEBUG nerdctl run {IMAGE} --model m", ["env"]),
        # env(1) read with getopt_long (the table generated from `env --help`): -iu X clusters, `-` is -i
        (f"env -iu X -- - A=1 docker run {IMAGE} --model m", ["env"]),
    ],
)
def test_a_wrapped_container_launch_is_read(command: str, wrappers: list[str]) -> None:
    report = check(command)
    hops = [h for h in report["transport"]["hops"] if h["via"] == "docker run"]
    assert [(h["wrappers"], h["image"]) for h in hops] == [(wrappers, IMAGE)]
    assert [s["argv"] for s in report["servers"]] == [
        ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]
    ]
    assert codes(report, "SH019") == []


def test_case_74_sudo_docker_run_with_a_redundant_serve() -> None:
    # vllm-project/vllm#37133: `sudo docker run ... vllm/vllm-openai:latest vllm serve MODEL`
    report = check("sudo docker run --rm vllm/vllm-openai:v0.17.1 vllm serve /models/m --port 9527")
    assert codes(report, "TP010") == [
        (
            "error",
            "vllm/vllm-openai:v0.17.1 already has the entrypoint `vllm serve`; the command after the "
            "image name "
            "is appended to it, so the container runs `vllm serve vllm serve /models/m --port 9527` and vllm "
            "becomes the model name",
        )
    ]


SUDO_DROPS = (
    "sudo starts docker with a reset environment (env_reset): `-e HF_TOKEN` copies HF_TOKEN from "
    "docker's own "
    "environment, where sudo removed it, so the container gets no HF_TOKEN (sudo 1.9.13p3-1+deb12u4 with the "
    "default /etc/sudoers of Debian GNU/Linux 12 (bookworm); the machine's sudoers may differ)"
)


def test_sudo_drops_a_variable_docker_copies_from_its_environment() -> None:
    report = check(f"export HF_TOKEN=hf_x\nsudo docker run -e HF_TOKEN {IMAGE} --model m")
    tp006 = [f for f in report["findings"] if f["code"] == "TP006"]
    assert [(f["severity"], f["basis"], f["message"], f["fix"]) for f in tp006] == [
        (
            "warning",
            "assumed",
            SUDO_DROPS,
            "Pass it through sudo (`sudo --preserve-env=HF_TOKEN docker run ...`), or write it in a file "
            "docker reads (`--env-file FILE`).",
        )
    ]


@pytest.mark.parametrize(
    "command",
    [
        # -E and --preserve-env keep it (sudoers(5)); a value written after -e is docker's own, not sudo's
        f"export HF_TOKEN=hf_x\nsudo -E docker run -e HF_TOKEN {IMAGE} --model m",
        f"export HF_TOKEN=hf_x\nsudo --preserve-env=HF_TOKEN docker run -e HF_TOKEN {IMAGE} --model m",
        f"sudo docker run -e HF_TOKEN=hf_x {IMAGE} --model m",
        # a name the caller never set: docker passes nothing with or without sudo
        f"sudo docker run -e HF_TOKEN {IMAGE} --model m",
    ],
)
def test_sudo_that_loses_nothing_says_nothing(command: str) -> None:
    assert codes(check(command), "TP006") == []


def test_the_wrappers_decide_what_docker_copies() -> None:
    words = ["sudo", "VLLM_USE_V1=1", "env", "-u", "HF_TOKEN", "docker", "run", "-e", "X", "img"]
    wrapped = find_wrapped_carrier(words)
    assert wrapped is not None and (wrapped.start, wrapped.wrappers) == (5, ["sudo", "env"])
    absent = object()
    # sudo's VAR=value sets it after the reset; env -u removes one sudo would have kept (env_keep: none here)
    assert wrapped.client_value("VLLM_USE_V1", "0", absent) == ("1", None)
    assert wrapped.client_value("HF_TOKEN", "hf_x", absent) == (absent, "sudo")
    assert wrapped.client_value("TERM", "xterm", absent) == ("xterm", None)  # env_check: no '/' or '%'
    cleared = find_wrapped_carrier(["env", "-i", "A=1", "docker", "run", "img"])
    assert cleared is not None
    assert cleared.client_value("B", "2", absent) == (absent, "env")
    assert cleared.client_value("A", absent, absent) == ("1", None)
    assert find_wrapped_carrier(["sudo", "ls", "-l"]) is None
    assert find_wrapped_carrier(["docker", "run", "img"]) is None  # no wrapper: the carrier itself


def test_env_i_in_front_of_docker_passes_nothing() -> None:
    report = check(f"export VLLM_USE_V1=0\nenv -i docker run -e VLLM_USE_V1 {IMAGE} --model m")
    assert report["process_env"]["framework_vars"] == []
    kept = check(f"env VLLM_USE_V1=0 docker run -e VLLM_USE_V1 {IMAGE} --model m")
    assert kept["process_env"]["framework_vars"] == ["VLLM_USE_V1"]


GPUSTACK = (
    "VLLM_USER_V1 reaches vLLM through gpustack/gpustack: GPUStack starts vLLM itself with the container's "
    "environment (GPUStack {span}, read from its code); no bundled vllm release reads VLLM_USER_V1: a "
    "misspelling of VLLM_USE_V1 (read by vllm 0.6.6.post1-0.11.0)"
)


@pytest.mark.parametrize(("tag", "span"), [("", "0.4.0-2.3.0"), (":v0.5.1", "0.5.1"), (":v2.0.0", "2.0.0")])
def test_a_misspelt_variable_passed_to_gpustack(tag: str, span: str) -> None:
    report = check(f"docker run -d -e VLLM_USER_V1=1 -e NCCL_DEBUG=INFO --gpus all gpustack/gpustack{tag}")
    pr001 = [f for f in report["findings"] if f["code"] == "PR001"]
    assert [(f["severity"], f["basis"], f["message"], f["fix"]) for f in pr001] == [
        (
            "warning",
            "assumed",
            GPUSTACK.format(span=span),
            "use VLLM_USE_V1 on a release that reads it, or remove VLLM_USER_V1",
        )
    ]


@pytest.mark.parametrize(
    "command",
    [
        "docker run -e VLLM_USE_V1=1 gpustack/gpustack",  # read by some releases: which one is not known
        "docker run -e VLLM_MY_SETTING=1 gpustack/gpustack",  # near no name a release reads
        "docker run -e VLLM_USER_V1=1 ubuntu:22.04",  # an image that starts no server
    ],
)
def test_other_variables_and_images_say_nothing(command: str) -> None:
    assert codes(check(command), "PR001") == []


def test_gpustack_2_filters_what_it_passes() -> None:
    # filter_env_vars (gpustack/utils/envs.py, 2.1.0+) drops *_PATH names; 0.x copied everything
    new = server_image("gpustack/gpustack:v2.3.0")
    old = server_image("gpustack/gpustack:v0.5.1")
    assert new is not None and old is not None
    assert (new.passes("VLLM_XLA_CACHE_PATH"), old.passes("VLLM_XLA_CACHE_PATH")) == ([], ["0.5.1"])
    assert new.frameworks() == ["sglang", "vllm"] and old.frameworks() == ["vllm"]
    assert server_image("vllm/vllm-openai:latest") is None


def test_a_wrapped_nerdctl_run_is_followed_not_named_unfollowed() -> None:
    # nerdctl run is read like docker run, so SH040 ("argtrace does not follow") would be wrong
    report = check("sudo nerdctl run --gpus all myimage vllm serve m --port 1")
    assert codes(report, "SH040") == []
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "m", "--port", "1"]]


@pytest.mark.parametrize(
    "command",
    [
        f"env --help docker run {IMAGE} --model m",  # prints its help and runs nothing
        f"env -u docker run {IMAGE} --model m",  # -u takes `docker` as the NAME: `run` is the command
    ],
)
def test_a_wrapper_that_runs_no_container_is_not_followed(command: str) -> None:
    report = check(command)
    assert "transport" not in report and report["servers"] == []
    assert [f["code"] for f in report["findings"]] == ["SH019"]


def test_the_two_lists_of_container_programs_agree() -> None:
    from argtrace.layers import transport
    from argtrace.layers.transport.wrapped import CONTAINER_PROGRAMS

    assert transport._CONTAINER_PROGRAMS == CONTAINER_PROGRAMS


def test_sudo_drops_a_bare_name_of_an_env_file(tmp_path: Path) -> None:
    # docker run reference, "--env-file": a line with only NAME takes the client's NAME, like -e NAME
    env_file = tmp_path / "server.env"
    env_file.write_text("HF_TOKEN\nVLLM_LOGGING_LEVEL=DEBUG\n")
    report = check(f"export HF_TOKEN=hf_x\nsudo docker run --env-file {env_file} {IMAGE} --model m")
    assert codes(report, "TP006") == [
        (
            "warning",
            SUDO_DROPS.replace("`-e HF_TOKEN`", f"the bare `HF_TOKEN` line of {env_file}"),
        )
    ]


COMPOSE = """services:
  gpustack:
    image: gpustack/gpustack:v0.5.1
    environment:
      - VLLM_USER_V1=1
"""

POD = """apiVersion: v1
kind: Pod
metadata:
  name: gpustack
spec:
  containers:
    - name: gpustack
      image: gpustack/gpustack:v0.5.1
      env:
        - name: VLLM_USER_V1
          value: "1"
"""


@pytest.mark.parametrize(("name", "text"), [("compose.yaml", COMPOSE), ("pod.yaml", POD)])
def test_gpustack_in_a_manifest(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text)
    result = run_cli(["check", "--format", "json", str(path)], cwd=tmp_path)
    report: dict[str, Any] = result.json
    assert codes(report, "PR001") == [("warning", GPUSTACK.format(span="0.5.1"))]
