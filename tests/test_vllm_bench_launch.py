"""``vllm bench latency|throughput`` read as an engine start, ``vllm bench serve`` as a client
(frameworks/vllm_bench.py, frameworks/detect.py; data/vllm_bench.json from scripts/gen_vllm_bench.py).

The real cases under ``tests/data/vllm_bench_launch/`` (each names its source in its header), measured as a
new user on main 2d1cff86 before the change, where all three gave only SH019 ("no SGLang or vLLM server
start found"): vllm-metal#26's `vllm bench throughput` (a correct use of the engine's flags: now read, and
clean), and two `vllm bench serve` clients (lmdeploy#4096, VUA#7), which stay unread: they send requests to
a server, they start none (VUA#7's `-port` typo is the client's own parser's refusal, which argtrace does not
read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import finding, recorded_check, unsourced
from tests.conftest import Launch, run_cli

CASES = Path(__file__).resolve().parent / "data" / "vllm_bench_launch"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def test_inventory() -> None:
    files = {p.name for p in CASES.iterdir() if p.is_file()}
    assert files == {
        "ok_vllmmetal26_bench_throughput.cmd",
        "client_lmdeploy4096_bench_serve.sh",
        "client_vua7_bench_serve_port.cmd",
    }
    assert unsourced(CASES) == []


def test_a_bench_throughput_is_read_as_an_engine_start() -> None:
    report = check("ok_vllmmetal26_bench_throughput.cmd")
    assert [s["entrypoint"] for s in report["servers"]] == ["vllm bench throughput"]
    assert report["framework"]["analysed_with"] == "0.33.0"
    # no alarm: the benchmark's own flags (--input-len, --num-prompts) and the engine's are the parser's
    assert [c for c in codes(report) if c[1] != "info"] == []


@pytest.mark.parametrize("name", ["client_lmdeploy4096_bench_serve.sh", "client_vua7_bench_serve_port.cmd"])
def test_bench_serve_is_a_client_not_a_server(name: str) -> None:
    report = check(name)
    assert report["servers"] == []
    assert codes(report) == [("SH019", "info")]


def _detected(argv: str) -> str | None:
    from argtrace.frameworks.detect import detect_server

    found = detect_server(argv.split())
    return None if found is None else f"{found.entrypoint} @{found.server_args_start}"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ("vllm bench latency --model m", "vllm bench latency @3"),
        ("vllm bench throughput --model m", "vllm bench throughput @3"),
        ("python3 -m vllm.entrypoints.cli.main bench throughput --model m", "vllm bench throughput @5"),
        ("uv run -m vllm.entrypoints.cli.main bench latency --model m", "vllm bench latency @6"),
        ("vllm_v0.10.0 bench latency --model m", "vllm bench latency @3"),
        # a client of a running server, and the subcommands that build no engine from these flags
        ("vllm bench serve --model m --port 8000", None),
        ("python -m vllm.entrypoints.cli.main bench serve --model m", None),
        ("vllm bench sweep serve", None),
        ("sglang bench latency --model m", None),
    ],
)
def test_which_bench_commands_start_an_engine(argv: str, expected: str | None) -> None:
    assert _detected(argv) == expected


def test_the_cli_module_s_client_subcommand_is_not_an_unfollowed_server() -> None:
    """``python -m vllm.entrypoints.cli.main bench serve``: SH040 ("argtrace does not follow python") was
    wrong, no server starts."""
    report = run_cli(
        ["check", "--format", "json", "-c", "python -m vllm.entrypoints.cli.main bench serve --model m"]
    ).json
    assert codes(report) == [("SH019", "info")]


def _check(command: str, *options: str) -> dict[str, Any]:
    report: dict[str, Any] = run_cli(
        ["check", "--format", "json", "--no-resolve", *options, "-c", command]
    ).json
    return report


def test_a_frontend_flag_is_refused_by_the_bench_parser() -> None:
    """--port is `vllm serve`'s (its frontend), not the engine's: `vllm bench throughput` refuses it."""
    report = _check(
        "vllm bench throughput --model m --num-prompts 8 --port 8000", "--framework-version", "0.33.0"
    )
    pa001 = finding(report, "PA001")
    assert pa001["severity"] == "error"
    assert pa001["message"].startswith("--port is not an option of `vllm bench throughput` in vllm 0.33.0")


def test_an_engine_flag_s_value_is_checked_as_a_server_s() -> None:
    report = _check(
        "vllm bench latency --model m --input-len 32 --attention-backend XFORMERS",
        "--framework-version",
        "0.33.0",
    )
    assert [c for c in codes(report) if c[1] != "info"] == [("PA070", "error")]


def test_a_release_without_vllm_bench() -> None:
    report = _check("vllm bench latency --model m --input-len 32", "--framework-version", "0.7.3")
    pr040 = finding(report, "PR040")
    assert pr040["message"].startswith(
        "vLLM 0.7.3 has no `vllm bench latency` (of the bundled releases 0.8.5.post1 to 0.33.0 have it): the "
        "console stops with `argument subparser: invalid choice: 'bench'`"
    )
    assert [c for c in codes(report) if c[1] != "info"] == [("PR040", "error")]


def test_the_generator_compares_a_set_s_repr_in_any_order() -> None:
    """vLLM's EnableDisableAction keeps its negative option strings in a set, whose repr's order depends on
    the dump's hash seed: an option alike but for that order is stored as shared, and an own one sorted."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from gen_vllm_bench import compact

    def flag(name: str, negatives: str) -> dict[str, Any]:
        attrs = {"negative_option_strings": {"repr": negatives}}
        return {"option_strings": [name], "dest": name[2:], "action_attrs": attrs}

    serve = {"options": [flag("--enable-eplb", "{'--no-enable-eplb', '--disable-eplb'}")], "positionals": []}
    arguments = [
        flag("--enable-eplb", "{'--disable-eplb', '--no-enable-eplb'}"),
        flag("--enable-dbo", "{'--no-enable-dbo', '--disable-dbo'}"),
    ]
    stored = compact({"parser": {}, "arguments": arguments}, serve)
    assert stored["shared"] == ["--enable-eplb"]
    assert stored["own"] == [flag("--enable-dbo", "{'--disable-dbo', '--no-enable-dbo'}")]
