"""Prefill/decode disaggregation and the SGLang router: real launch reports (docs/real_cases.md, "PD
disaggregation and the router"), classed before any change, and the mechanisms on minimal inputs.

Each case under ``tests/data/real_cases_pd8/pd8_*.sh`` is our reconstruction of a launch posted in a public
issue or pull request (its header names the URL). The machine is a new user's; the release is passed only
when the report names it. A root cause argtrace names with its fix is a ``Found`` entry; a miss is a strict
``xfail`` whose reason names the mechanism. The correct PD launches collected beside them are in the
false-alarm gate (``tests/data/false_alarms/scripts/pd8_*.sh``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.router_launch import parse_router, router_flags
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_pd8"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check_file(path: Path, *options: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *options, str(path)], cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def check_script(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "pd.sh"
    path.write_text("#!/bin/bash\n" + text)
    return check_file(path)


@dataclass(frozen=True)
class Found:
    """The root cause as an error or warning: (code, severity, message start)."""

    file: str
    options: tuple[str, ...]
    code: str
    severity: str
    starts: str
    count: int = 1  # one finding per server start it names


FOUND = [
    Found(
        "pd8_vllm11490_two_producers.sh",
        (),
        "PA041",
        "error",
        "servers 1, 2 are all PyNcclConnector kv_rank 0 (kv_producer, kv_producer): each rank of the KV "
        "transfer group is one instance",
    ),
    Found(
        "pd8_vllm19448_kv_role_missing.sh",
        ("--framework-version", "0.9.0.1"),
        "PA043",
        "warning",
        "--kv-transfer-config names kv_connector 'DynamoNixlConnector' and no kv_role: vLLM's "
        "KVTransferConfig "
        'refuses it ("Please specify kv_role when kv_connector is set")',
    ),
    Found(
        "pd8_vllm20965_nixl_same_side_port.sh",
        (),
        "PA042",
        "error",
        "servers 1, 2 start NixlConnector on this machine with one side channel localhost:5600 "
        "(VLLM_NIXL_SIDE_CHANNEL_HOST/PORT, the default): the second handshake listener cannot bind",
    ),
    Found(
        "pd8_vllm22093_v0_connector_on_v1.sh",
        ("--framework-version", "0.9.2"),
        "PA043",
        "warning",
        "'PyNcclConnector' is a V0-engine KV connector and vllm 0.9.2 runs the V1 engine by default "
        "(VLLM_USE_V1 unset): KVConnectorFactory.create_connector_v1 asserts a V1 connector class",
        count=2,
    ),
    # the posted function reads $MODEL_PATH, set outside it: SH026 (`$model` empty) comes with the snippet
    Found(
        "pd8_vllm14952_pynccl_tp_mismatch.sh",
        (),
        "PA041",
        "warning",
        "the PyNcclConnector instances run different tensor parallel sizes (server 1: 1, server 2: 2)",
    ),
]


@pytest.mark.parametrize("case", FOUND, ids=[c.file for c in FOUND])
def test_pd8_root_cause_is_named(case: Found) -> None:
    report = check_file(CASES / case.file, *case.options)
    hits = [f for f in alarms(report) if f["code"] == case.code]
    assert [(f["severity"], f["message"].startswith(case.starts)) for f in hits] == [
        (case.severity, True)
    ] * case.count


@dataclass(frozen=True)
class Noted:
    """The root cause named as information only (class b): the release that decides is not known."""

    file: str
    options: tuple[str, ...]
    code: str
    starts: str


NOTED = [
    Noted(
        "pd8_sglang12535_pd_router_no_urls.sh",
        (),
        "PA041",
        "launch_router in PD mode without --prefill: sglang-router 0.1.5-0.2.2 refuse it",
    ),
    Noted(
        "pd8_llmd2433_pd_tp_mismatch.sh",
        ("--framework-version", "0.5.16"),
        "PA041",
        "the prefill and decode servers run different TP sizes (server 1: 1, server 2: 4)",
    ),
    Noted(
        "pd8_dynamo5309_bootstrap_on_localhost.sh",
        (),
        "PA041",
        "prefill server 1 starts its bootstrap server on 127.0.0.1 (--host, SGLang's default) of "
        "<ssh node1>, but decode server 4 runs on <ssh node2>: it cannot reach the bootstrap server",
    ),
    Noted(
        "pd8_smg773_enable_mesh.sh",
        (),
        "PA001",
        'smg 1.1.0-1.3.1 refuse flags of this smg launch ("unrecognized arguments"): --enable-mesh from '
        "1.3.2; the release installed is not known",
    ),
    # production-stack's router (not on PyPI; its parse_args read at the repository's release tags): the
    # report names no image release, so the releases before the flag are a note
    Noted(
        "pd8_prodstack746_router_flag.sh",
        (),
        "PA001",
        'production-stack 0.0.2-0.1.6 refuse flags of this vllm-router ("unrecognized arguments"): '
        "--k8s-service-discovery-type from 0.1.7; the release installed is not known",
    ),
    Noted(
        "pd8_vllm15960_lmcache_v0_name.sh",
        (),
        "PA043",
        "vllm 0.33.0 registers no KV connector 'LMCacheConnector' (",
    ),
]


@pytest.mark.parametrize("case", NOTED, ids=[c.file for c in NOTED])
def test_pd8_root_cause_is_a_note(case: Noted) -> None:
    report = check_file(CASES / case.file, *case.options)
    # the ssh lines of the reconstruction of dynamo#5309 bring TP005 (python3 on a non-interactive PATH)
    assert [f["code"] for f in alarms(report) if f["code"] != "TP005"] == []
    hits = [f for f in report["findings"] if f["code"] == case.code]
    assert [(f["severity"], f["basis"]) for f in hits] == [("info", "assumed")] * len(hits) != []
    assert hits[0]["message"].startswith(case.starts)


MISSED = {
    "pd8_vllm24720_p2pnccl_no_http_port.sh": "the report names no release, and the newest (0.33.0) has no "
    "P2pNcclConnector: only an info says so; with --framework-version 0.10.2 PA043 names the missing "
    "http_port",
}


@pytest.mark.parametrize(
    "file", [pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=MISSED[f])) for f in sorted(MISSED)]
)
def test_pd8_missed_root_cause_is_named(file: str) -> None:
    # fails today (class c): no error or warning names the root cause
    assert alarms(check_file(CASES / file)) != []


def test_every_pd8_case_names_its_source() -> None:
    files = sorted(CASES.glob("pd8_*.sh"))
    for path in files:
        assert "https://github.com/" in path.read_text().splitlines()[1], path.name
    assert {p.name for p in files} == {c.file for c in FOUND} | {c.file for c in NOTED} | set(MISSED)


def test_smg_launch_is_judged_by_the_smg_release_installed(tmp_path: Path) -> None:
    # smg's console script `smg` (its #! line names the venv's python, whose site-packages hold smg 1.1.0)
    venv = _venv_with_router(tmp_path, "0.3.2")
    (site,) = venv.glob("lib/python3*/site-packages")
    dist = site / "smg-1.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: smg\nVersion: 1.1.0\n")
    script = venv / "bin" / "smg"
    script.write_text(f"#!{venv}/bin/python\nimport sys\n")
    script.chmod(0o755)
    report = check_script(tmp_path, f"{script} launch --enable-mesh --worker-urls http://127.0.0.1:30000\n")
    got = [(f["code"], f["severity"], f["message"]) for f in alarms(report)]
    assert [g[:2] for g in got] == [("PA001", "error")]
    assert got[0][2].startswith(
        "--enable-mesh is taken by smg 1.3.2-1.13.0 but not by smg 1.1.0 (installed, "
    )


def test_a_required_extra_key_is_named_when_the_release_is() -> None:
    report = check_file(CASES / "pd8_vllm24720_p2pnccl_no_http_port.sh", "--framework-version", "0.10.2")
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == [
        (
            "PA043",
            "error",
            "P2pNcclConnector of vllm 0.10.2 reads kv_connector_extra_config http_port, which "
            "--kv-transfer-config does not give: the engine stops when it builds the connector (KeyError: "
            "'http_port')",
        )
    ] * 2


def test_the_router_alone_as_documented_is_clean() -> None:
    # a correct launch that starts no server (the false-alarm gate needs one): sglang#8644's test command
    report = check_file(CASES / "pd8ok_sglang8644_router_alone.sh")
    assert [(f["code"], f["severity"], f["message"]) for f in report["findings"]] == [
        (
            "PA001",
            "info",
            'sglang-router 0.1.4 refuses flags of this launch_router ("unrecognized arguments"): '
            "--pd-disaggregation, --prefill, --decode from 0.1.5; the release installed is not known",
        )
    ]


# ---- the mechanisms on minimal inputs (SGLang 0.5.23's PD code, sglang-router 0.3.2's parser)

_M = "--model-path meta-llama/Llama-3.1-8B-Instruct"
_P = f"python -m sglang.launch_server {_M} --disaggregation-mode prefill --port 30000"
_D = f"python -m sglang.launch_server {_M} --disaggregation-mode decode --port 30001 --base-gpu-id 1"
_R = "python -m sglang_router.launch_router --pd-disaggregation --host 0.0.0.0 --port 8000"


def _pd(tmp_path: Path, prefill: str, decode: str, router: str) -> list[tuple[str, str, str]]:
    report = check_script(tmp_path, f"{_P} {prefill} &\n{_D} {decode} &\n{_R} {router}\n")
    return [(f["code"], f["severity"], f["message"]) for f in alarms(report)]


def test_the_router_s_bootstrap_port_is_the_prefill_s(tmp_path: Path) -> None:
    urls = "--prefill http://127.0.0.1:30000 {} --decode http://127.0.0.1:30001"
    assert _pd(tmp_path, "--disaggregation-bootstrap-port 9000", "", urls.format("9000")) == []
    assert _pd(tmp_path, "--disaggregation-bootstrap-port 9000", "", urls.format("8998")) == [
        (
            "PA041",
            "error",
            "the router gives bootstrap port 8998 for --prefill http://127.0.0.1:30000, but server 1's "
            "bootstrap "
            "server listens on 9000 (--disaggregation-bootstrap-port): the decode server asks the wrong port "
            "for every KV cache (connection refused)",
        )
    ]


def test_no_router_port_means_the_decode_server_s_own(tmp_path: Path) -> None:
    urls = "--prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001"
    both = "--disaggregation-bootstrap-port 9000"
    assert _pd(tmp_path, both, both, urls) == []
    assert _pd(tmp_path, both, "", urls) == [
        (
            "PA041",
            "error",
            "the router gives no bootstrap port for --prefill http://127.0.0.1:30000, so decode server 2 "
            "asks "
            "its own --disaggregation-bootstrap-port 8998, but prefill server 1 listens on 9000: every KV "
            "transfer fails (connection refused)",
        )
    ]


def test_a_router_url_that_names_the_other_mode(tmp_path: Path) -> None:
    swapped = "--prefill http://127.0.0.1:30001 --decode http://127.0.0.1:30000"
    got = _pd(tmp_path, "", "", swapped)
    assert [(c, s) for c, s, _ in got] == [("PA041", "error"), ("PA041", "error")]
    assert got[0][2].startswith("the router's --decode http://127.0.0.1:30000 is server 1, started with ")


def test_prefill_and_decode_on_different_transfer_backends(tmp_path: Path) -> None:
    urls = "--prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001"
    got = _pd(tmp_path, "--disaggregation-transfer-backend nixl", "", urls)
    assert got == [
        (
            "PA041",
            "error",
            "the prefill and decode servers use different KV transfer backends (server 1: nixl, server 2: "
            "mooncake): each side builds its KV sender or receiver from its own backend, so no KV cache "
            "passes",
        )
    ]


def test_two_prefill_servers_on_one_bootstrap_port(tmp_path: Path) -> None:
    two = f"{_P} &\n{_P.replace('30000', '30002')} --base-gpu-id 2 &\nwait\n"
    got = [(f["code"], f["message"]) for f in alarms(check_script(tmp_path, two))]
    assert got == [
        (
            "PA042",
            "prefill servers 1 and 2 both start their bootstrap server on 127.0.0.1:8998 on this machine: "
            "the "
            'second cannot bind ("Address already in use") and its KV transfers never start',
        )
    ]
    apart = two.replace("--base-gpu-id 2", "--base-gpu-id 2 --disaggregation-bootstrap-port 8999")
    assert alarms(check_script(tmp_path, apart)) == []


def test_launch_router_flags_per_release() -> None:
    newest, flags = router_flags()
    assert newest == "0.3.2"
    assert flags["--pd-disaggregation"].releases[0] == "0.1.5"  # 0.1.4's router has no PD mode
    assert flags["--mini-lb"].releases == (
        "0.2.0",
        "0.2.1",
        "0.2.2",
        "0.2.3",
        "0.2.4",
        "0.3.0",
        "0.3.1",
        "0.3.2",
    )
    got = parse_router(
        "--pd-disaggregation --prefill http://p:30000 9000 --prefill http://q:30000 --decode "
        "http://d:30001 --enable-mesh --polic round_robin".split()
    )
    assert (got.pd, got.prefill, got.decode) == (
        True,
        [("http://p:30000", "9000"), ("http://q:30000", None)],
        ["http://d:30001"],
    )
    assert got.unknown == ["--enable-mesh"]  # no release read takes it (smg#773's flag)
    assert got.problems == []  # --polic is argparse's unique prefix of --policy


def test_a_router_word_no_release_takes_is_a_warning_resting_on_the_release(tmp_path: Path) -> None:
    report = check_script(
        tmp_path, "python -m sglang_router.launch_router --pd-disaggregation --enable-mesh\n"
    )
    assert [(f["code"], f["severity"], f["basis"], f["message"]) for f in alarms(report)] == [
        (
            "PA001",
            "warning",
            "assumed",
            "--enable-mesh: no sglang-router release read (0.1.4-0.3.2) takes it, so launch_router refuses "
            'to start ("unrecognized arguments", exit 2); sglang-router 0.3.2 (the newest read release; the '
            "one installed is not known)",
        )
    ]


def _venv_with_router(tmp_path: Path, version: str) -> Path:
    """A real virtual environment (``python -m venv``) whose site-packages holds an sglang-router dist-info
    of ``version``: argtrace reads the release from those files, never runs the interpreter."""
    import subprocess
    import sys

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (site,) = venv.glob("lib/python3*/site-packages")
    dist = site / f"sglang_router-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sglang-router\nVersion: {version}\n")
    return venv


def test_the_installed_router_release_judges_its_flags(tmp_path: Path) -> None:
    venv = _venv_with_router(tmp_path, "0.2.2")
    words = "-m sglang_router.launch_router --pd-disaggregation --prometheus-duration-buckets 1 2"
    report = check_script(tmp_path, f"{venv}/bin/python {words}\n")
    where = f"{venv}/lib"
    got = [(f["code"], f["severity"], f["basis"], f["message"]) for f in alarms(report)]
    assert [g[:3] for g in got] == [("PA001", "error", "static"), ("PA041", "error", "static")]
    assert got[0][3].startswith(
        "--prometheus-duration-buckets is taken by sglang-router 0.3.0-0.3.2 but not by sglang-router 0.2.2 "
        f"(installed, {where}"
    )
    assert got[1][3].startswith(
        'launch_router in PD mode without --prefill: sglang-router 0.1.5-0.2.2 refuse it ("PD disaggregation '
        'mode requires --prefill", RouterArgs._validate_router_args), 0.2.3 and later start and wait for '
        "workers to register; sglang-router 0.2.2 (installed, "
    )
    newer = _venv_with_router(tmp_path / "b", "0.3.2")
    assert alarms(check_script(tmp_path, f"{newer}/bin/python {words}\n")) == []


def test_a_prefill_host_not_known_statically_is_not_judged(tmp_path: Path) -> None:
    # SGLang's docs start multi-node PD with --host ${local_ip} on each node: no value to judge
    lines = (
        f"ssh node1 {_P} --host $(hostname -I) &\nssh node2 {_D} --host $(hostname -I) &\nwait\n",
        f"ssh node1 {_P} &\nssh node2 {_D} &\nwait\n",
    )
    judged = [
        [(f["code"], f["severity"]) for f in check_script(tmp_path, text)["findings"] if f["code"] == "PA041"]
        for text in lines
    ]
    assert judged == [[], [("PA041", "info")]]


def test_two_nixl_instances_with_their_own_side_channel_hosts_do_not_clash(tmp_path: Path) -> None:
    kv = """'{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"""
    text = "".join(
        f"VLLM_NIXL_SIDE_CHANNEL_HOST={host} vllm serve m --port {port} --kv-transfer-config {kv} &\n"
        for host, port in (("10.0.0.1", 8100), ("10.0.0.2", 8200))
    )
    assert [f["code"] for f in alarms(check_script(tmp_path, text + "wait\n"))] == []


def test_launch_server_router_flags_against_the_installed_router(tmp_path: Path) -> None:
    # sglang_router.launch_server: --router-redis-url is new in sglang-router 0.3.2 (the schema's release)
    venv = _venv_with_router(tmp_path, "0.3.1")
    line = (
        f"{venv}/bin/python -m sglang_router.launch_server --model-path m --dp-size 2 --router-redis-url r\n"
    )
    got = [(f["code"], f["severity"], f["message"]) for f in alarms(check_script(tmp_path, line))]
    assert [g[:2] for g in got] == [("PA001", "error")]
    assert got[0][2].startswith(
        "--router-redis-url is taken by sglang-router 0.3.2 but not by sglang-router 0.3.1 ("
    )
