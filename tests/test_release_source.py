"""The release's source says what decided it, after resolution too (issue 11, honest verdicts).

Three claims that were wrong: a release decided by an image tag or a ``pip install`` line was reported as
``resolver-env`` once the framework's own resolution ran; PR007 advised ``--python`` or
``--framework-version`` when a log, ``--url``, ``--pid``, an image tag or a pip line had already decided
the release; and an image tagged ``latest`` (or untagged) was reported as image evidence for the newest
bundled release, though ``latest`` names none.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.release import (
    EVIDENCE_SOURCES,
    describe_releases,
    image_naming_no_release,
    release_from_image,
    source_after_resolution,
)
from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import bundled_versions
from argtrace.model import FrameworkSource
from tests.conftest import REPO, run_cli
from tests.needs import unmet

# every bundled SGLang release, from the data (issue 15 bundles more of them over time)
SGLANG = tuple(bundled_versions("sglang", include_user=False))
LAUNCH = "python3 -m sglang.launch_server --model-path /m --tp-size 2"
# A PATH that holds no interpreter on any machine: PR007's "not found" is then certain.
NO_VLLM = "PATH=/nonexistent/bin vllm serve /m --max-model-len 32768"
NO_PYTHON = f"PATH=/nonexistent/bin {LAUNCH}"
PR007_VLLM = (
    "`vllm` is not found on the PATH the server would get on this machine; the framework version installed "
    "there could not be read"
)


def check(*argv: str, cwd: Path | None = None) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    data: dict[str, Any] = result.json
    return data


def findings(report: dict[str, Any], code: str) -> list[tuple[str, str, str, str | None]]:
    return [
        (f["severity"], f["basis"], f["message"], f["fix"]) for f in report["findings"] if f["code"] == code
    ]


# ------------------------------------------------------------------------------ source after resolution


def _literal_values(alias: str) -> tuple[str, ...]:
    """The values of a ``Literal[...]`` type alias, which argtrace.model keeps as a string (a plain check
    imports no typing: tests/test_startup_typing.py)."""
    node = ast.parse(alias, mode="eval").body
    assert isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Literal"
    values = ast.literal_eval(node.slice)
    return values if isinstance(values, tuple) else (values,)


def test_every_source_that_says_how_the_release_was_decided_survives_resolution() -> None:
    env, python = "resolver-env sglang==0.5.10.post1", "--python /opt/venv/bin/python"
    after = {
        s: (source_after_resolution(s, env), source_after_resolution(s, python))
        for s in _literal_values(FrameworkSource)
    }
    assert after == {
        # a release the user named: the contract has always reported the code that ran for it
        "bundled-schema": ("resolver-env", "installed"),
        "resolver-env": ("resolver-env", "installed"),
        "installed": ("installed", "installed"),
        "log": ("log", "log"),
        "live": ("live", "live"),
        "image": ("image", "image"),
        "pip-line": ("pip-line", "pip-line"),
        "none": ("none", "none"),
        "process": ("process", "process"),
        "run": ("run", "run"),
    }
    assert EVIDENCE_SOURCES == {"live", "process", "run", "log", "installed", "image", "pip-line"}
    # check.py's own set of kept sources (another branch adds to it) is honoured too
    assert source_after_resolution("bundled-schema", env, kept=("bundled-schema",)) == "bundled-schema"
    assert source_after_resolution(None, env) is None


DOCKER = f"docker run --gpus all lmsysorg/sglang:v0.5.10.post1 {LAUNCH}\n"
COMPOSE = f"services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.10.post1\n    command: {LAUNCH}\n"
K8S = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  containers:\n  - name: s\n"
    "    image: lmsysorg/sglang:v0.5.10.post1\n"
    '    command: ["python3", "-m", "sglang.launch_server"]\n'
    '    args: ["--model-path", "/m", "--tp-size", "2"]\n'
)
PIP = f'pip install "sglang[all]==0.5.10.post1"\n{LAUNCH}\n'


@pytest.mark.frameworks
@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "text", "source", "evidence"),
    [
        ("launch.sh", DOCKER, "image", "image lmsysorg/sglang:v0.5.10.post1 at {path}:1:1"),
        ("compose.yaml", COMPOSE, "image", "image lmsysorg/sglang:v0.5.10.post1 at {path}:4"),
        ("pod.yaml", K8S, "image", "image lmsysorg/sglang:v0.5.10.post1 at {path}:10"),
        ("launch.sh", PIP, "pip-line", "`sglang[all]==0.5.10.post1` installed at {path}:1:1"),
    ],
)
def test_a_release_from_an_image_tag_or_pip_line_keeps_its_source_after_resolution(
    name: str, text: str, source: str, evidence: str, tmp_path: Path
) -> None:
    # One real resolution of the same server arguments: the first case runs sglang 0.5.10.post1's own
    # code (~10 s), the others answer from the resolution cache (resolver/cache.py).
    if unmet(["resolver:sglang==0.5.10.post1"]):
        pytest.skip("needs the sglang 0.5.10.post1 resolver environment (scripts/build_test_envs)")
    (tmp_path / name).write_text(text)
    model = str(REPO / "tests/data/models/llama-3.1-8b")
    report = check("--model-config", model, "--gpu", "h100x2", name, cwd=tmp_path)
    assert (report["resolution"]["status"], report["resolution"]["interpreter"]) == (
        "ok",
        "resolver-env sglang==0.5.10.post1",
    )
    assert report["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        "source": source,
        "evidence": evidence.format(path=name),
    }
    # the release is evidence and the GPU given: nothing rests on an assumption
    assert {f["basis"] for f in report["findings"]} <= {"framework-code", "static", "schema"}
    argv = ["check", "--no-shellcheck", "--model-config", model, "--gpu", "h100x2", name]
    text_out = run_cli(argv, cwd=tmp_path)
    header = f"argtrace check — sglang 0.5.10.post1 ({evidence.format(path=name)})"
    assert text_out.stdout.splitlines()[0] == header


# ----------------------------------------------------------------------------------------------- PR007


def test_pr007_stays_when_nothing_decided_the_release() -> None:
    report = check("--no-resolve", "-c", NO_VLLM)
    assert report["framework"]["source"] == "none"
    assert findings(report, "PR007") == [
        ("info", "static", PR007_VLLM, "pass --python PATH or --framework-version V")
    ]


def test_pr007_is_gone_once_a_log_an_image_a_pip_line_or_a_named_release_decided_it(tmp_path: Path) -> None:
    log = REPO / "tests/data/logs/vllm_0.20_qwen36_mtp.log"
    logged = check("--no-resolve", "--log", str(log), "-c", NO_VLLM)
    assert (logged["framework"]["version"], logged["framework"]["source"]) == ("0.20.0", "log")
    assert findings(logged, "PR007") == []
    image = tmp_path / "image.sh"
    image.write_text("docker run --gpus all vllm/vllm-openai:v0.11.0 vllm serve /m --max-model-len 32768\n")
    imaged = check("--no-resolve", str(image))
    assert (imaged["framework"]["version"], imaged["framework"]["source"]) == ("0.11.0", "image")
    assert findings(imaged, "PR007") == []
    pip = tmp_path / "pip.sh"
    pip.write_text(f"pip install vllm==0.11.0\n{NO_VLLM}\n")
    piped = check("--no-resolve", str(pip))
    assert (piped["framework"]["version"], piped["framework"]["source"]) == ("0.11.0", "pip-line")
    assert findings(piped, "PR007") == []
    named = check("--no-resolve", "--framework-version", "0.11.0", "-c", NO_VLLM)
    assert named["framework"]["source"] == "bundled-schema"
    assert findings(named, "PR007") == []


def test_pr007_is_gone_once_the_server_or_the_process_decided_it(tmp_path: Path) -> None:
    from tests.live.fixture_server import serve_fixture
    from tests.observed.fake_server import fake_site, start_fake_server, stop

    with serve_fixture("vllm-0.33.0") as server:
        live = check("--no-resolve", "--url", server.url, "-c", NO_VLLM)
    assert (live["framework"]["version"], live["framework"]["source"]) == ("0.33.0", "live")
    assert findings(live, "PR007") == []
    site = fake_site(tmp_path / "site", version="0.5.19")
    proc = start_fake_server(site, ["--model-path", "/m", "--tp-size", "2"], port_file=tmp_path / "port")
    try:
        running = check("--no-resolve", "--pid", str(proc.pid), "-c", NO_PYTHON)
    finally:
        stop(proc)
    assert (running["framework"]["version"], running["framework"]["source"]) == ("0.5.19", "process")
    assert findings(running, "PR007") == []


def test_a_server_without_path_is_still_told_so_with_a_fix_about_the_path() -> None:
    message = (
        'the server process gets no PATH, so `vllm` cannot be looked up (bash would say "command not found" '
        "unless it is a path)"
    )
    unknown = check("--no-resolve", "-c", "env -i vllm serve /m")
    assert findings(unknown, "PR007") == [
        ("warning", "static", message, "pass --python PATH or --framework-version V")
    ]
    named = check("--no-resolve", "--framework-version", "0.11.0", "-c", "env -i vllm serve /m")
    assert findings(named, "PR007") == [
        (
            "warning",
            "static",
            message,
            "give the server a PATH that holds `vllm`, or call it by its full path",
        )
    ]


# --------------------------------------------------------------------------------------- latest images


@pytest.mark.parametrize(
    ("framework", "image", "names_no_release"),
    [
        ("sglang", "lmsysorg/sglang:latest", "lmsysorg/sglang:latest"),
        ("sglang", "lmsysorg/sglang", "lmsysorg/sglang"),
        ("sglang", "docker.io/lmsysorg/sglang:latest", "docker.io/lmsysorg/sglang:latest"),
        ("sglang", "lmsysorg/sglang:dev", "lmsysorg/sglang:dev"),
        ("vllm", "vllm/vllm-openai:nightly", "vllm/vllm-openai:nightly"),
        ("vllm", "vllm/vllm-openai:latest@sha256:0123", "vllm/vllm-openai:latest@sha256:0123"),
        ("sglang", "lmsysorg/sglang:v0.5.10.post1", None),
        ("sglang", "vllm/vllm-openai:latest", None),
        ("vllm", "registry.example.com/team/vllm:latest", None),
        ("vllm", None, None),
    ],
)
def test_an_image_tag_that_names_no_release_is_no_evidence(
    framework: str, image: str | None, names_no_release: str | None
) -> None:
    if names_no_release is not None:
        assert release_from_image(framework, image, SGLANG) is None
    assert image_naming_no_release(framework, image) == names_no_release


LATEST_PR011 = (
    "nothing shows which sglang release runs (no --framework-version, log, installed package, image tag or "
    "pip line; the tag of image lmsysorg/sglang:latest names no release): analysed as sglang {analysed}, the "
    "newest bundled release that accepts every flag and variable of the launch (accepted by {accepted})"
)


@pytest.mark.parametrize(
    ("name", "text", "at"),
    [
        ("launch.sh", f"docker run --gpus all --ipc host lmsysorg/sglang:latest {LAUNCH}\n", "{path}:1:1"),
        ("compose.yaml", COMPOSE.replace("v0.5.10.post1", "latest"), "{path}:4"),
        ("pod.yaml", K8S.replace("v0.5.10.post1", "latest"), "{path}:10"),
    ],
)
def test_a_latest_image_leaves_the_release_unknown(name: str, text: str, at: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text)
    report = check("--no-resolve", str(path))
    assert report["framework"] == {
        "name": "sglang",
        "version": None,
        "source": "none",
        "analysed_with": "0.5.23",
        "accepted_by": list(SGLANG),
    }
    assert [(f["code"], f["severity"], f["basis"], f["message"], f["at"]) for f in report["findings"]] == [
        (
            "PR011",
            "info",
            "static",
            LATEST_PR011.format(analysed="0.5.23", accepted=describe_releases(SGLANG, SGLANG)),
            at.format(path=path),
        )
    ]
    text_out = run_cli(["check", "--no-shellcheck", "--no-resolve", str(path)])
    assert text_out.stdout.splitlines()[0] == (
        "argtrace check — sglang, release unknown (analysed as 0.5.23; pass --framework-version)"
    )


def test_under_a_latest_image_a_finding_that_depends_on_the_release_rests_on_an_assumption(
    tmp_path: Path,
) -> None:
    # Before, lmsysorg/sglang:latest was "image: 0.5.23", where --mamba-scheduler-strategy does not exist:
    # PA003 error "the server refuses to start". It is known to 0.5.10.post1-0.5.19 only (0.5.20 removed
    # it), so with the release unknown its verdict holds on some releases only and says what it assumed.
    (tmp_path / "launch.sh").write_text(
        f"docker run --gpus all --ipc host lmsysorg/sglang:latest {LAUNCH} "
        "--mamba-scheduler-strategy extra_buffer\n"
    )
    report = check("--no-resolve", "launch.sh", cwd=tmp_path)
    framework = report["framework"]
    assert (framework["version"], framework["source"], framework["analysed_with"]) == (None, "none", "0.5.19")
    # the releases that know the flag, from the data: the newest of them is the one analysed
    knowing = release_index("sglang").releases_knowing_flag("--mamba-scheduler-strategy")
    refusing = [v for v in SGLANG if v not in knowing]
    assert knowing[-1] == "0.5.19" and refusing[-4:] == ["0.5.20", "0.5.21", "0.5.22", "0.5.23"]
    assert [(f["code"], f["severity"], f["basis"], f["message"]) for f in report["findings"]] == [
        (
            "PR011",
            "info",
            "static",
            LATEST_PR011.format(analysed="0.5.19", accepted=describe_releases(knowing, SGLANG))
            + f"; sglang {describe_releases(refusing, SGLANG)} do not know --mamba-scheduler-strategy",
        ),
        (
            "PA005",
            "info",
            "assumed",
            "--mamba-scheduler-strategy is deprecated in sglang 0.5.19: '--mamba-scheduler-strategy' is "
            "deprecated and will be removed in a future release. Use '--mamba-radix-cache-strategy' instead.",
        ),
    ]
    [pa005] = [f for f in report["findings"] if f["code"] == "PA005"]
    assert pa005["assumed"] == [
        {"what": "release", "value": "sglang 0.5.19", "option": "--framework-version"}
    ]
    text_out = run_cli(["check", "--no-shellcheck", "--no-resolve", "launch.sh"], cwd=tmp_path)
    assert (
        "            rests on an assumption: sglang 0.5.19 (pass --framework-version)"
        in text_out.stdout.splitlines()
    )


def test_a_runner_tools_pr007_is_gone_once_the_release_is_decided() -> None:
    """``uv run``: the interpreter is the environment uv selects, so the release there is unknown until
    evidence names it; then the finding would be wrong advice."""
    command = "uv run -m sglang.launch_server --model-path /m"
    unknown = check("--no-resolve", "-c", command)
    assert findings(unknown, "PR007") == [
        (
            "info",
            "static",
            "`python -m sglang.launch_server` runs in the environment `uv run` selects, not the one PATH "
            "finds here; the framework release installed there is unknown (not read)",
            "pass --python PATH or --framework-version V",
        )
    ]
    named = check("--no-resolve", "--framework-version", "0.5.10.post1", "-c", command)
    assert findings(named, "PR007") == []


def test_a_parser_error_on_an_assumed_image_entrypoint_is_at_most_a_warning() -> None:
    """TP044: the image table knows `vllm serve` for vllm/vllm-openai 0.11.1 to 0.27.1 (evidence to 0.27.1);
    for 0.28.0 it is assumed, and what the parser says of the words rests on that."""
    command = "docker run --gpus all vllm/vllm-openai:v0.28.0 --served-model-name q --port 8000"
    report = check("--no-resolve", "-c", command)
    (pa023,) = [f for f in report["findings"] if f["code"] == "PA023"]
    # info: the tag names a release no known build is recorded for, and the builds disagree on the
    # entrypoint, so the finding holds on some builds only (verdicts.py; docs/real_cases.md)
    assert (pa023["severity"], pa023["basis"]) == ("info", "assumed")
    assert pa023["assumed"] == [
        {
            "what": "entrypoint",
            "value": "`vllm serve` for vllm/vllm-openai:v0.28.0",
            "option": "--entrypoint, or command: in the launch file",
        }
    ]
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == []
    # a tag the table knows: the same words are an error (vLLM's launcher stops before parsing)
    known = check("--no-resolve", "-c", command.replace("v0.28.0", "v0.26.0"))
    assert [(f["code"], f["severity"]) for f in known["findings"]] == [("PA023", "error")]
    pinned = "docker run --gpus all --entrypoint vllm vllm/vllm-openai:v0.28.0 serve m --served-model-name q"
    codes = [f["code"] for f in check("--no-resolve", "-c", pinned)["findings"]]
    assert "TP044" not in codes and "PA023" not in codes
