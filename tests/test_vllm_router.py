"""PyPI's ``vllm-router`` (vllm-project/router) parsed per release, production-stack's router told apart by
its files, and the router's installed release read on the PATH the script gives its command.

The flags are generated from the vllm-router wheels and sdists on PyPI (0.1.9-0.1.17) by
``scripts/gen_vllm_router_schema.py``. The environments are real ``python -m venv`` directories holding a
dist-info and pip-style console scripts: argtrace reads those files and never runs them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.frameworks.router_launch import parse_router, router_flags, router_release
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).resolve().parents[1] / "src/argtrace/frameworks/data/vllm_router.json"
RELEASES = ["0.1.9", "0.1.10", "0.1.12", "0.1.13", "0.1.14", "0.1.15", "0.1.16", "0.1.17"]


def _check(tmp_path: Path, text: str) -> dict[str, object]:
    path = tmp_path / "router.sh"
    path.write_text("#!/bin/bash\n" + text)
    result = run_cli(["check", "--format", "json", str(path)], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, object] = result.json
    return report


def _findings(report: dict[str, object]) -> list[tuple[str, str, str, str]]:
    return [(f["code"], f["severity"], f["basis"], f["message"]) for f in report["findings"]]  # type: ignore[attr-defined]


def _venv(tmp_path: Path, dist: str, version: str, entry: str | None = None, record: str = "") -> Path:
    """A real venv with ``dist``'s dist-info of ``version`` and, when ``entry`` is given, pip's console
    script ``vllm-router`` for that entry point (module:function)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (site,) = venv.glob("lib/python3*/site-packages")
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    if record:
        (info / "RECORD").write_text(record)
    if entry is not None:
        module, func = entry.split(":")
        script = venv / "bin" / "vllm-router"
        script.write_text(
            f"#!{venv}/bin/python\nimport sys\nfrom {module} import {func}\nif __name__ == '__main__':\n"
            f"    sys.exit({func}())\n"
        )
        script.chmod(0o755)
    return venv


def test_the_generated_vllm_router_schema() -> None:
    data = json.loads(DATA.read_text())
    assert data["releases"] == RELEASES
    assert data["console_script"] == "vllm_router.launch_router:main"
    assert len(data["flags"]) == 76
    assert data["flags"]["--pd-disaggregation"] == RELEASES[:5]
    assert data["flags"]["--vllm-discovery-address"] == ["0.1.15", "0.1.16", "0.1.17"]
    # production-stack's router flags are not PyPI vllm-router's (key production_stack holds them)
    assert [
        f
        for f in ("--static-backends", "--routing-logic", "--k8s-service-discovery-type")
        if f in data["flags"]
    ] == []
    newest, flags = router_flags("vllm-router")
    assert newest == "0.1.17"
    assert flags["--prefill"].takes == "many"


def test_a_pd_launch_parses_on_the_newest_release() -> None:
    words = "--vllm-pd-disaggregation --prefill http://p:8100 9000 --decode http://d:8200 --polic random"
    got = parse_router(words.split(), release=router_release(product="vllm-router"))
    assert (got.prefill, got.decode, got.unknown, got.problems) == (
        [("http://p:8100", "9000")],
        ["http://d:8200"],
        [],
        [],
    )
    assert got.pd is False  # the PD pair checks read SGLang bootstrap ports: not vLLM's


def test_production_stack_words_are_read_by_its_parser(tmp_path: Path) -> None:
    # no router installed here: the words decide; production-stack's parse_args takes all of these
    line = "vllm-router --port 8000 --service-discovery k8s --routing-logic roundrobin\n"
    assert _findings(_check(tmp_path, line)) == []
    bad = "python -m vllm_router.app --routing-logic fastest --static-backends http://a:1\n"
    assert _findings(_check(tmp_path, bad)) == [
        (
            "PA009",
            "warning",
            "assumed",
            "vllm-router: argument --routing-logic: invalid choice: 'fastest' (choose from roundrobin, "
            "session, kvaware, prefixaware, disaggregated_prefill, disaggregated_prefill_orchestrated) "
            "(production-stack 0.1.12 (the newest read release; the one installed is not known)): exit 2",
        )
    ]


def test_words_neither_router_takes_are_a_note(tmp_path: Path) -> None:
    assert _findings(_check(tmp_path, "vllm-router --port 8000 --no-such-flag 1\n")) == [
        (
            "PA001",
            "info",
            "assumed",
            "no PyPI vllm-router release read (0.1.9-0.1.17, vllm-project/router) takes --no-such-flag, 1, "
            "and production-stack's router, which shares the command name (vllm_router.app:main; its "
            "parse_args read at 0.0.2-0.1.12), refuses words of it too: vllm-router would refuse to start "
            '("unrecognized arguments", exit 2); the router installed is not known',
        )
    ]


def test_the_production_stack_schema_from_its_tags() -> None:
    stack = json.loads(DATA.read_text())["production_stack"]
    assert (
        stack["releases"][0] == "0.0.2" and stack["releases"][-1] == "0.1.12" and len(stack["releases"]) == 23
    )
    assert stack["flags"]["--k8s-service-discovery-type"] == [
        "0.1.7",
        "0.1.8",
        "0.1.9",
        "0.1.10",
        "0.1.11",
        "0.1.12",
    ]
    assert len(stack["flags"]) == 55


def test_production_stack_s_console_script_is_read_with_its_parser(tmp_path: Path) -> None:
    venv = _venv(tmp_path, "vllm-router", "0.1.dev1", "vllm_router.app:main")
    text = f"export PATH={venv}/bin:$PATH\nvllm-router --port 8000 --static-backends http://a:8000\n"
    assert _findings(_check(tmp_path, text)) == []
    newer = text.replace("http://a:8000", "http://a:8000 --k8s-service-discovery-type pod-ip")
    assert _findings(_check(tmp_path, newer)) == [
        (
            "PA001",
            "info",
            "assumed",
            'production-stack 0.0.2-0.1.6 refuse flags of this vllm-router ("unrecognized arguments"): '
            "--k8s-service-discovery-type from 0.1.7; the release installed is not known",
        )
    ]


def test_production_stack_s_dist_info_is_read_with_its_parser(tmp_path: Path) -> None:
    # a console script whose head names no entry point (hand-made): the dist-info's RECORD decides
    venv = _venv(tmp_path, "vllm-router", "0.1.dev1", record="vllm_router/app.py,,\n")
    (venv / "bin" / "vllm-router").write_text(f"#!{venv}/bin/python\n")
    (venv / "bin" / "vllm-router").chmod(0o755)
    text = f"export PATH={venv}/bin:$PATH\nvllm-router --port 8000 --static-backends http://a:8000\n"
    assert _findings(_check(tmp_path, text)) == []


def test_the_installed_pypi_release_on_the_script_s_path_judges_its_flags(tmp_path: Path) -> None:
    venv = _venv(tmp_path, "vllm-router", "0.1.14", "vllm_router.launch_router:main")
    where = next(venv.glob("lib/python3*/site-packages")) / "vllm_router-0.1.14.dist-info"
    line = "vllm-router --worker-urls http://127.0.0.1:8100 --vllm-discovery-address tcp://h:5555\n"
    report = _check(tmp_path, f"export PATH={venv}/bin:$PATH\n{line}")
    assert _findings(report) == [
        (
            "PA001",
            "error",
            "static",
            "--vllm-discovery-address is taken by vllm-router 0.1.15-0.1.17 but not by vllm-router 0.1.14 "
            f'(installed, {where}): its vllm-router refuses it ("unrecognized arguments", exit 2)',
        )
    ]
    # the same line on argtrace's own PATH: no vllm-router there, so no release is read
    assert _findings(_check(tmp_path, line)) == [
        (
            "PA001",
            "info",
            "assumed",
            'vllm-router 0.1.9-0.1.14 refuse flags of this vllm-router ("unrecognized arguments"): '
            "--vllm-discovery-address from 0.1.15; the release installed is not known",
        )
    ]


def test_the_sglang_router_release_is_read_on_the_script_s_path(tmp_path: Path) -> None:
    venv = _venv(tmp_path, "sglang-router", "0.2.2")
    words = "python -m sglang_router.launch_router --prometheus-duration-buckets 1 2 --worker-urls http://a:1"
    where = next(venv.glob("lib/python3*/site-packages")) / "sglang_router-0.2.2.dist-info"
    got = _findings(_check(tmp_path, f"export PATH={venv}/bin:/usr/bin:/bin\n{words}\n"))
    assert got == [
        (
            "PA001",
            "error",
            "static",
            "--prometheus-duration-buckets is taken by sglang-router 0.3.0-0.3.2 but not by sglang-router "
            f'0.2.2 (installed, {where}): its launch_router refuses it ("unrecognized arguments", exit 2)',
        )
    ]
    # a prefix assignment gives the command its PATH too
    assert _findings(_check(tmp_path, f"PATH={venv}/bin {words}\n")) == got


def test_production_stack_static_discovery_against_its_own_code(tmp_path: Path) -> None:
    # StaticServiceDiscovery asserts as many URLs as models; parse_static_urls skips what validate_url refuses
    fixed = (
        "vllm-router --service-discovery static --static-backends http://localhost:8100,{} "
        "--static-models m,m\n"
    )
    assert _findings(_check(tmp_path, fixed.format("http://10.0.0.2:8200"))) == []
    assert _findings(_check(tmp_path, fixed.format("http://prefill:8200"))) == [
        (
            "PA020",
            "error",
            "schema",
            "production-stack's router keeps 1 of the --static-backends URLs (parse_static_urls skips "
            "http://prefill:8200: validate_url's pattern takes a dotted domain, localhost or an IPv4 "
            'address) and --static-models names 2 model(s): StaticServiceDiscovery asserts "URLs and '
            'models should have the same length" (service_discovery.py, 0.0.2-0.1.12), so the router '
            "stops at start",
        )
    ]
    alone = "vllm-router --service-discovery static --static-backends http://localhost:8100\n"
    assert _findings(_check(tmp_path, alone)) == [
        (
            "PA020",
            "error",
            "schema",
            "vllm-router --service-discovery static without --static-models: production-stack's router "
            '0.0.2-0.1.12 refuses it ("Static models must be provided when using static service discovery.", '
            "validate_args) and exits",
        )
    ]
