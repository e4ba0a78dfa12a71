"""The vLLM batch of session 27 (docs/real_cases.md, "vLLM, 27th session"), measured before any fix: data
parallel launches over nodes and their load-balancing modes (a head given ``--data-parallel-start-rank 0``
beside ``--headless`` workers on 0.28-0.29, ``--api-server-count`` on a headless node, the DP launch
checks of vLLM 0.27.1 on, external DP with a dense model on vllm-ascend and its KV connector), a
``--limit-mm-per-prompt`` key=value on 0.13.0, MTP drafts without ``num_speculative_tokens``, a GGUF file
with the Mistral-format flags. Each case under ``tests/data/real_cases_vllm27/`` names its URL on its first
line (after a ``#!`` line): ``.cmd`` launches for ``argtrace check -c``, ``.sh`` scripts, ``.txt`` the text
a report quotes for ``argtrace why``, ``ok_*`` the correct launches collected with them. The machine is a
new user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

import copy
import functools
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import REPO, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm27"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 0f0ca7e8) and now.
CLASSES = {
    "flagscale1075_limit_mm_key_value_0130.cmd": ("a", "a"),
    "gpustack6221_head_start_rank_0.sh": ("c", "a"),
    "gpustack6221_remote_headless.txt": ("b", "a"),
    "vllm17210_gguf_mistral_format.cmd": ("c", "c"),
    "vllm49124_hybrid_and_external_lb.cmd": ("a", "a"),
    "vllm49124_hybrid_without_local_size.cmd": ("c", "c"),
    "vllm49124_multinode_ray_backend.cmd": ("c", "a"),
    "vllm55323_mtp_none_compare.txt": ("c", "c"),
    "vllm55323_mtp_without_num_tokens.cmd": ("c", "c"),
    "vllmascend11863_dense_external_dp.sh": ("d", "c"),
    "vllmascend11863_non_moe_external_dp.txt": ("b", "a"),
    "vllmascend14082_headless_api_server_count.sh": ("c", "a"),
    "vllmascend16204_headless_secondary.sh": ("c", "a"),
}
CORRECT = [
    "ok_gpustack6221_head_without_start_rank.sh",
    "ok_gpustack6221_worker_headless.sh",
    "ok_lisa758_gpt_oss_async_scheduling.cmd",
    "ok_recipes657_qwen36_async_scheduling.cmd",
    "ok_srtslurm277_per_node_hybrid_lb.sh",
    "ok_vllm53743_external_lb_shared_node.sh",
]
# the release a report names (its text, a log line, its image or package), given as --framework-version
RELEASES = {
    "flagscale1075_limit_mm_key_value_0130.cmd": "0.13.0",
    "gpustack6221_head_start_rank_0.sh": "0.29.0",
    "gpustack6221_remote_headless.txt": "0.29.0",
    "ok_gpustack6221_head_without_start_rank.sh": "0.29.0",
    "ok_gpustack6221_worker_headless.sh": "0.29.0",
    "ok_recipes657_qwen36_async_scheduling.cmd": "0.24.0",
    "vllmascend11863_dense_external_dp.sh": "0.21.0",
    "vllmascend11863_non_moe_external_dp.txt": "0.21.0",
    "vllmascend14082_headless_api_server_count.sh": "0.22.1",
    "vllmascend16204_headless_secondary.sh": "0.28.0",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "vllm17210_gguf_mistral_format.cmd": (
        "--tokenizer-mode",
        "the Mistral tokenizer reads tekken.json or tokenizer.model.v* beside the model, which a GGUF file's "
        "directory lacks: what a model directory holds is not read on a new user's machine, and which "
        "releases load GGUF at all differs (0.33.0's EngineArgs no longer names it)",
    ),
    "vllm49124_hybrid_without_local_size.cmd": (
        "--data-parallel-size-local",
        "the raise site's tests read --data-parallel-size-local, which the launch does not give: RS032 "
        "leaves a site reading a setting whose default create_engine_config may rewrite first (it does with "
        "--nnodes), so the refusal is not evaluated",
    ),
    "vllm55323_mtp_without_num_tokens.cmd": (
        "num_speculative_tokens",
        "the TypeError is SpeculativeConfig's comparison `self.num_speculative_tokens > 1` before the "
        "draft's n_predict is read, not a raise: the raise-site index does not record it",
    ),
    "vllmascend11863_dense_external_dp.sh": (
        "external data parallel",
        "the refusal tests the model's is_moe: Qwen3.6-27B (a local path here) is dense, which needs its "
        "config.json; nothing of the model is read on a new user's machine",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([2, 2, 8, 1], [8, 0, 5, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == (2 if name.startswith(("ok_srtslurm", "ok_vllm53743")) else 1)


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


_REFUSED = '("Remote engine N must not use --headless in external or hybrid dp lb mode")'


def test_gpustack6221_a_head_given_start_rank_0() -> None:
    """c -> a: vLLM 0.29.0 tests `data_parallel_start_rank is not None`, so the head written with rank 0
    becomes an external-LB rank and refuses the headless worker; the worker's script is not in the file,
    so a warning resting on it."""
    report = check("gpustack6221_head_start_rank_0.sh")
    assert shown_codes(report) == [("PA054", "warning")]
    cause = finding(report, "PA054")
    assert (cause["basis"], cause["server"]) == ("assumed", 1)
    assert cause["message"] == (
        "--data-parallel-start-rank 0 on a start that is not --headless: vllm 0.29.0 takes it for a hybrid "
        "load-balanced node (EngineArgs.create_engine_config, which tests `data_parallel_start_rank is not "
        "None`, so rank 0 too; vllm 0.10.2-0.27.1 test the bare value, where rank 0 stays the internal-LB "
        "head), and with --data-parallel-size-local 1 switches it to external load "
        "balancing: every other DP rank must then run its own API server, and the head refuses a remote "
        f"engine started with --headless {_REFUSED}, the internal-LB layout of vLLM's guide"
    )
    assert cause["fix"] == (
        "remove --data-parallel-start-rank 0 from the head if the other nodes run --headless (the "
        "internal-LB head runs ranks from 0)"
    )


def test_vllmascend16204_both_nodes_in_one_file() -> None:
    """c -> a: the head and its headless worker in one script: an error."""
    report = check("vllmascend16204_headless_secondary.sh")
    assert shown_codes(report) == [("PA054", "error")]
    cause = finding(report, "PA054")
    assert cause["message"] == (
        "--data-parallel-start-rank 0 on a start that is not --headless: vllm 0.28.0 takes it for a hybrid "
        "load-balanced node (EngineArgs.create_engine_config, which tests `data_parallel_start_rank is not "
        "None`, so rank 0 too; vllm 0.10.2-0.27.1 test the bare value, where rank 0 stays the internal-LB "
        "head), and with --data-parallel-size-local 1 switches it to external load "
        "balancing; server 2 of the same launch is --headless, and the head refuses a headless remote "
        f"engine in that mode {_REFUSED}: the launch fails when the other node joins"
    )
    assert cause["fix"] == (
        "remove --data-parallel-start-rank 0 from the head (the internal-LB head runs ranks from 0), or "
        "start the other nodes without --headless so each serves its own API"
    )


def test_vllmascend14082_api_server_count_on_a_headless_node() -> None:
    """c -> a: 0.22.1's serve refuses any --api-server-count above 0 with --headless."""
    report = check("vllmascend14082_headless_api_server_count.sh")
    assert shown_codes(report) == [("PA054", "error")]
    cause = finding(report, "PA054")
    assert cause["message"] == (
        "--api-server-count 1 on a --headless start: vllm 0.22.1 refuses it before any engine starts "
        '(ValueError "--api-server-count=1 cannot be used with --headless (no API servers are started in '
        'headless mode).", vllm/entrypoints/cli/serve.py); a headless node runs engines only, the API '
        "servers run on the head"
    )
    assert (
        cause["fix"]
        == "remove --api-server-count from the --headless start (give it to the head, if anywhere)"
    )


_HEAD = (
    "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --data-parallel-size-local 1 "
    "--data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345"
)


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        # 0.27.1 tests the bare value: rank 0 is the internal-LB head
        ("0.27.1", f"{_HEAD} --data-parallel-start-rank 0", []),
        ("0.28.0", f"{_HEAD} --data-parallel-start-rank 0", [("PA054", "warning")]),
        # a node of a hybrid or external layout, no headless peer in the file
        ("0.29.0", f"{_HEAD} --data-parallel-start-rank 1", []),
        # the mode written out
        ("0.29.0", f"{_HEAD} --data-parallel-start-rank 0 --data-parallel-hybrid-lb", []),
        # one node holds every rank: hybrid mode is turned off
        ("0.29.0", f"{_HEAD} --data-parallel-start-rank 0 --data-parallel-size-local 2", []),
        # run_headless's bound was `> 1` up to 0.14.1, `> 0` from 0.15.1
        ("0.14.1", f"{_HEAD} --headless --data-parallel-start-rank 1 --api-server-count 1", []),
        (
            "0.15.1",
            f"{_HEAD} --headless --data-parallel-start-rank 1 --api-server-count 1",
            [("PA054", "error")],
        ),
        (
            "0.14.1",
            f"{_HEAD} --headless --data-parallel-start-rank 1 --api-server-count 2",
            [("PA054", "error")],
        ),
        # the other node of the file serves its own API too (hybrid by inference on both): the mode meant
        (
            "0.29.0",
            f"{_HEAD} --data-parallel-start-rank 0 &\n"
            f"{_HEAD} --data-parallel-start-rank 1 --port 8001 &\nwait",
            [],
        ),
        # a release whose wheel was not read
        ("0.7.3", f"{_HEAD} --data-parallel-start-rank 0", []),
    ],
)
def test_dp_mode_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which releases and flags make PA054 speak."""
    report = command("--framework-version", release, "-c", words)
    assert [(c, s) for c, s in shown_codes(report) if c == "PA054"] == expected


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        ("0.33.0", "--nnodes 2 --data-parallel-backend ray", [("RS032", "error")]),  # the release named
        ("0.33.0", "--nnodes 2 --data-parallel-backend mp", []),
        ("0.26.0", "--nnodes 2 --data-parallel-backend ray", []),  # the check came with 0.27.1
    ],
)
def test_a_one_word_option_in_a_refusal(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """c -> a for vllm49124's third case: `--nnodes` is an option its message names (a one-word option is
    read with its dashes), so RS032 evaluates the combination."""
    report = command(
        "--framework-version", release, "-c", f"vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat {words}"
    )
    assert [(c, s) for c, s in shown_codes(report) if c == "RS032"] == expected


def test_vllm49124_the_multinode_case_is_refused() -> None:
    report = check("vllm49124_multinode_ray_backend.cmd")
    assert shown_codes(report) == [("RS032", "warning")]
    assert finding(report, "RS032")["fix"] == (
        "change or remove --nnodes or --data-parallel-backend (the check's message says which)"
    )


def test_vllmascend11863_a_platform_plugins_connector_is_a_note() -> None:
    """d -> c: vllm-ascend registers MooncakeConnectorV1 itself; `--quantization ascend` shows the platform,
    so vLLM's own registry is not the server's (was a PA043 error)."""
    report = check("vllmascend11863_dense_external_dp.sh")
    assert shown_codes(report) == []
    note = finding(report, "PA043")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"] == (
        "vllm 0.21.0 itself registers no KV connector 'MooncakeConnectorV1'; the launch runs on an "
        "out-of-tree platform (Ascend NPU: --quantization ascend), whose plugin may register it"
    )


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("", [("PA043", "error")]),  # nothing shows a platform plugin: vLLM's registry is the server's
        ("HCCL_BUFFSIZE=512 ", []),  # Ascend's collective library variable: the plugin's platform
    ],
)
def test_platform_plugin_variants(prefix: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports)."""
    config = '\'{"kv_connector":"MooncakeConnectorV1","kv_role":"kv_producer"}\''
    report = command(
        "--framework-version", "0.21.0", "-c", f"{prefix}vllm serve /m --kv-transfer-config {config}"
    )
    assert [(c, s) for c, s in shown_codes(report) if c == "PA043"] == expected


def test_why_on_a_headless_remote_refused() -> None:
    """b -> a: the site's fix named --headless and the two mode flags, not the start rank that set the
    mode."""
    first = _why("gpustack6221_remote_headless.txt")["matches"][0]
    assert first["function"] == "wait_for_engine_startup"
    assert first["fix"] == (
        "the head runs hybrid or external load balancing, in which every node serves its own API; its mode "
        "is set by --data-parallel-hybrid-lb, --data-parallel-external-lb or --data-parallel-rank, or "
        "inferred: on vllm 0.29.0 a start that is not --headless is taken for a hybrid load-balanced node "
        "by any --data-parallel-start-rank, 0 too, switched to external load balancing with "
        "--data-parallel-size-local 1. Remove those from the head (internal load balancing: one API "
        "server, --headless workers), or start engine 1's node without --headless"
    )


def test_why_on_external_dp_with_a_dense_model() -> None:
    """b -> a: the site's fix was "change --data-parallel-size"; the refusal's own advice is to drop the
    --data-parallel-* arguments, and the flags that set external mode are named."""
    first = _why("vllmascend11863_non_moe_external_dp.txt")["matches"][0]
    assert first["function"] == "EngineArgs.create_engine_config"
    assert first["fix"].startswith(
        "the model is not a mixture of experts, and external data parallel mode is set by "
        "--data-parallel-rank or --data-parallel-external-lb (on vllm 0.21.0 a start that is not --headless "
        "is taken for a hybrid load-balanced node by a --data-parallel-start-rank above 0"
    )


def test_why_on_the_mtp_type_error_stays_generic() -> None:
    """Class c: Python's own TypeError; no site is claimed."""
    section = _why("vllm55323_mtp_none_compare.txt")
    assert section["matches"] == []


def test_the_release_table_is_generated() -> None:
    """frameworks/data/vllm_dp_launch.json is scripts/gen_vllm_dp_launch.py's output: the generator's
    reading of a release's code, on the forms it tells apart."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_dp_launch import ARG_UTILS, ENGINE_UTILS, SERVE, facts

    arg_utils = (
        "def f(self, headless):\n"
        "    if self.data_parallel_start_rank is not None and not headless:\n"
        "        self.data_parallel_hybrid_lb = True\n"
        "    if self.data_parallel_hybrid_lb and data_parallel_size_local == 1:\n"
        "        data_parallel_external_lb = True\n"
    )
    serve = (
        "def cmd(args):\n"
        "    if args.headless:\n"
        "        if args.api_server_count is not None and args.api_server_count > 0:\n"
        "            raise ValueError(f'--api-server-count={args.api_server_count} cannot be used with '\n"
        "                             '--headless')\n"
        "def run_headless(args):\n"
        "    if args.api_server_count > 1:\n"
        '        raise ValueError("api_server_count can\'t be set in headless mode")\n'
    )
    utils = (
        "def w(headless, i):\n"
        "    if headless:\n"
        "        raise RuntimeError(f'Remote engine {i} must not use --headless in external or hybrid '\n"
        "                           'dp lb mode')\n"
    )
    assert facts({ARG_UTILS: arg_utils, SERVE: serve, ENGINE_UTILS: utils}) == {
        "hybrid_from_start_rank": "set",
        "local_one_external": True,
        "remote_headless_refused": (
            "Remote engine {i} must not use --headless in external or hybrid dp lb mode"
        ),
        "headless_api_server_count": {
            "above": 0,
            "message": "--api-server-count={args.api_server_count} cannot be used with --headless",
        },
    }
    bare = arg_utils.replace(" is not None", "")
    assert facts({ARG_UTILS: bare})["hybrid_from_start_rank"] == "nonzero"


@pytest.mark.parametrize(
    ("release", "inferred"),
    [
        ("0.29.0", "any --data-parallel-start-rank, 0 too"),
        ("0.10.2", "a --data-parallel-start-rank above 0"),  # the bare value's releases
    ],
)
def test_why_on_a_remote_engine_not_headless(release: str, inferred: str) -> None:
    """Variant (not a report): the converse refusal, the head in internal load balancing."""
    text = "RuntimeError: Remote engine 1 must use --headless unless in external or hybrid dp lb mode"
    result = run_cli(["why", "--format", "json", "--framework-version", release, text])
    fix = result.json["why"]["matches"][0]["fix"]
    assert fix.startswith(
        "the head runs internal load balancing, whose remote engines must be --headless: start engine 1's "
        "node with --headless, or make every node serve its own API (hybrid: --data-parallel-hybrid-lb; "
        f"on vllm {release} a start that is not --headless is taken for a hybrid load-balanced node by "
        f"{inferred},"
    )


_WORKER = (
    "vllm serve Qwen/Qwen3-30B-A3B --headless --data-parallel-size 2 --data-parallel-size-local 1 "
    "--data-parallel-start-rank 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345"
)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("--data-parallel-rank 0", [("PA054", "error")]),  # external load balancing written out
        ("--data-parallel-size-local 1 --data-parallel-hybrid-lb", [("PA054", "error")]),
        ("--data-parallel-size-local 1", []),  # internal load balancing: the guide's layout
    ],
)
def test_a_written_mode_beside_a_headless_worker(
    tmp_path: Path, head: str, expected: list[tuple[str, str]]
) -> None:
    """Variants (not reports): the mode written on the head, its headless worker in the same file."""
    script = tmp_path / "dp.sh"
    script.write_text(
        "#!/bin/bash\n"
        f"ssh node0 vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 {head} --data-parallel-address "
        "10.0.0.1 --data-parallel-rpc-port 13345 &\n"
        f"ssh node1 {_WORKER} &\nwait\n"
    )
    report = command("--framework-version", "0.29.0", str(script))
    assert [(c, s) for c, s in shown_codes(report) if c == "PA054"] == expected
