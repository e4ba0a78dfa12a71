"""vLLM data parallel launches over several starts of one script (``layers/multinode_dp.py``), by the CLI.

The clean cases are the false-alarm gate's reconstructions of vLLM's data parallel deployment guide
(https://github.com/vllm-project/vllm/blob/01e4fce07423dafcc832600ba05159fb28dc1126/docs/serving/data_parallel_deployment.md):
the head with DP ranks 0-1 and a ``--headless`` node with ranks 2-3 at the head's
``--data-parallel-address``/``--data-parallel-rpc-port``; the API server alone on the head with all four
engines headless; external load balancing with two co-located ranks, each with its own
``CUDA_VISIBLE_DEVICES``. Each broken variant changes one word and asserts the exact finding, whose
consequence is vLLM 0.33.0's own (vllm/engine/arg_utils.py ``create_engine_config``, vllm/config/parallel.py,
vllm/v1/engine/utils.py ``wait_for_engine_startup``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

GATE = Path(__file__).resolve().parent / "data" / "false_alarms" / "scripts"
TWO_NODES = (GATE / "vllm_dp_two_nodes_ssh.sh").read_text()
API_ONLY = (GATE / "vllm_dp_api_only_head_ssh.sh").read_text()
EXTERNAL = (GATE / "vllm_dp_external_lb_colocated.sh").read_text()
HEADLESS = (
    "--headless --data-parallel-size 4 --data-parallel-size-local 2 \\\n    --data-parallel-start-rank 2"
)


def _check(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "dp.sh"
    path.write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", "0.11.0", str(path)]
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _pa(report: dict[str, Any]) -> list[tuple[str, str, object, object, object]]:
    return [
        (f["code"], f["severity"], f["setting"], f["server"], f.get("basis"))
        for f in report["findings"]
        if str(f["code"]).startswith("PA03")  # the multi-node rules
    ]


def _message(report: dict[str, Any], code: str) -> str:
    return str(next(f["message"] for f in report["findings"] if f["code"] == code))


def _rows(report: dict[str, Any]) -> list[tuple[str, bool, list[str]]]:
    (launch,) = report["multinode"]["launches"]
    return [(r["setting"], r["must_agree"], r["values"]) for r in launch["rows"]]


@pytest.mark.parametrize("text", [TWO_NODES, API_ONLY, EXTERNAL], ids=["two_nodes", "api_only", "external"])
def test_the_documented_data_parallel_launches_are_one_clean_launch(tmp_path: Path, text: str) -> None:
    report = _check(tmp_path, text)
    assert _pa(report) == []
    assert [launch["servers"] for launch in report["multinode"]["launches"]] == [[1, 2]]


def test_the_matrix_shows_the_rows_that_differ_by_design(tmp_path: Path) -> None:
    assert _rows(_check(tmp_path, TWO_NODES)) == [
        ("data_parallel_start_rank", False, ["null (default)", "2"]),
        ("headless", False, ["false (default)", "true"]),
    ]


HEAD_RANKS = "server 1: ranks 0, 1 (data_parallel_start_rank 0 (default), data_parallel_size_local 2)"


def test_a_headless_node_on_the_heads_ranks_is_pa031(tmp_path: Path) -> None:
    report = _check(
        tmp_path, TWO_NODES.replace("--data-parallel-start-rank 2", "--data-parallel-start-rank 1")
    )
    assert _pa(report) == [("PA031", "error", "data_parallel_start_rank", 2, "schema")]
    assert _message(report, "PA031") == (
        f"servers 1, 2 of one vLLM data parallel launch all run DP rank 1 ({HEAD_RANKS}; server 2: "
        "ranks 1, 2 (data_parallel_start_rank 1, data_parallel_size_local 2)): the head takes each rank's "
        "engine once, and its engine handshake (wait_for_engine_startup) raises RuntimeError at the second"
    )


def test_a_forgotten_start_rank_is_rank_0_again(tmp_path: Path) -> None:
    report = _check(tmp_path, TWO_NODES.replace("--data-parallel-start-rank 2", ""))
    assert _pa(report) == [("PA031", "error", "data_parallel_start_rank", 2, "schema")]
    assert "all run DP ranks 0, 1 (" in _message(report, "PA031")
    assert "server 2: ranks 0, 1 (data_parallel_start_rank 0 (default)" in _message(report, "PA031")


def test_ranks_past_the_size_are_refused_by_the_head(tmp_path: Path) -> None:
    report = _check(
        tmp_path, TWO_NODES.replace("--data-parallel-start-rank 2", "--data-parallel-start-rank 3")
    )
    assert _pa(report) == [("PA032", "error", "data_parallel_start_rank", 2, "schema")]
    assert _message(report, "PA032") == (
        "server 2 runs ranks 3, 4 (data_parallel_start_rank 3, data_parallel_size_local 2), but "
        "data_parallel_size is 4: ranks run from 0 to 3, so rank 4 has no place and the head refuses the "
        'engine ("Message from engine with unexpected data parallel rank: 4")'
    )


def test_a_start_rank_at_the_size_is_refused_by_its_own_node(tmp_path: Path) -> None:
    report = _check(
        tmp_path, TWO_NODES.replace("--data-parallel-start-rank 2", "--data-parallel-start-rank 4")
    )
    assert _pa(report) == [("PA032", "error", "data_parallel_start_rank", 2, "schema")]
    assert _message(report, "PA032").endswith(
        'so rank 4, 5 has no place and vLLM refuses it on that node ("data_parallel_rank (4) must be in the '
        'range [0, 4)")'
    )


def test_local_sizes_short_of_the_size_leave_ranks_to_no_start_a_warning(tmp_path: Path) -> None:
    # the missing rank may be started by another script: a warning that says what it rests on
    text = TWO_NODES.replace(HEADLESS, HEADLESS.replace("-size-local 2", "-size-local 1"))
    report = _check(tmp_path, text)
    assert _pa(report) == [("PA032", "warning", "data_parallel_size_local", 1, "assumed")]
    assert _message(report, "PA032") == (
        f"the 2 starts of this vLLM data parallel launch ({HEAD_RANKS}; server 2: rank 2 "
        "(data_parallel_start_rank 2, data_parallel_size_local 1)) leave rank 3 of data_parallel_size 4 to "
        "no start: their data_parallel_size_local add up to 2 + 1 = 3; unless another script starts them, "
        "the head (server 1) waits for them without a time limit (vLLM's wait_for_engine_startup)"
    )


def test_a_gap_between_the_ranks_is_a_warning(tmp_path: Path) -> None:
    text = TWO_NODES.replace("--data-parallel-size 4", "--data-parallel-size 6").replace(
        "--data-parallel-start-rank 2", "--data-parallel-start-rank 4"
    )
    report = _check(tmp_path, text)
    assert _pa(report) == [("PA032", "warning", "data_parallel_size_local", 1, "assumed")]
    assert "leave ranks 2, 3 of data_parallel_size 6 to no start: their data_parallel_size_local add up to " \
        "2 + 2 = 4;" in _message(report, "PA032")  # fmt: skip


def test_headless_nodes_without_their_head_are_not_judged_for_missing_ranks(tmp_path: Path) -> None:
    # the head (ranks 0-1) is started elsewhere: ranks 2-5 of 8 here leave 6-7 to another script too
    lines = [HEADLESS_LINE.format(host=130 + n, start=2 + 2 * n) for n in range(2)]
    report = _check(tmp_path, "\n".join(["#!/bin/bash", *lines, "wait", ""]))
    assert [len(report["servers"]), _pa(report)] == [2, []]


HEADLESS_LINE = (
    "ssh 10.99.48.{host} /opt/venv/bin/vllm serve Qwen/Qwen3-30B-A3B --headless --data-parallel-size 8 "
    "--data-parallel-size-local 2 --data-parallel-start-rank {start} --data-parallel-address 10.99.48.128 &"
)


ADDRESS = "--data-parallel-start-rank 2 \\\n    --data-parallel-address 10.99.48.128"
PORT = f"{ADDRESS} --data-parallel-rpc-port 13345"


@pytest.mark.parametrize(
    ("old", "new", "setting"),
    [
        (ADDRESS, ADDRESS.replace("128", "127"), "data_parallel_address"),
        (PORT, PORT.replace("13345", "13346"), "data_parallel_rpc_port"),
        ("--headless --data-parallel-size 4", "--headless --tensor-parallel-size 2 --data-parallel-size 4",
         "tensor_parallel_size"),
    ],
)  # fmt: skip
def test_a_headless_node_disagreeing_with_its_head_is_pa030(
    tmp_path: Path, old: str, new: str, setting: str
) -> None:
    assert old in TWO_NODES
    report = _check(tmp_path, TWO_NODES.replace(old, new))
    assert _pa(report) == [("PA030", "error", setting, 2, "schema")]
    must = [(name, values) for name, agree, values in _rows(report) if agree]
    assert [name for name, _ in must] == [setting]


def test_another_address_on_the_headless_node_joins_it_to_its_head(tmp_path: Path) -> None:
    # the headless node's ranks are exactly what the head lacks: one launch with a mistyped address
    report = _check(tmp_path, TWO_NODES.replace(ADDRESS, ADDRESS.replace("128", "127")))
    assert _message(report, "PA030") == (
        "the 2 nodes of one multi-node launch disagree on data_parallel_address: server 1 "
        "(<ssh 10.99.48.128>:1:1): 10.99.48.128, server 2 (<ssh 10.99.48.129>:1:1): 10.99.48.127"
    )


EXTERNAL_SAME = (
    "servers 1, 2 of one vLLM data parallel launch run on one machine (this machine) and both use GPU 0: "
    "server 1 runs rank 0 (data_parallel_rank 0) on GPU 0 (CUDA_VISIBLE_DEVICES=0), server 2 runs rank 1 "
    "(data_parallel_rank 1) on GPU 0 ({how}); each process puts its engines on the first GPUs it sees, so "
    "they load the model on the same GPUs (vLLM's data parallel deployment guide gives co-located ranks "
    "their own CUDA_VISIBLE_DEVICES)"
)


def test_co_located_ranks_on_the_same_gpu_are_pa039(tmp_path: Path) -> None:
    report = _check(tmp_path, EXTERNAL.replace("CUDA_VISIBLE_DEVICES=1", "CUDA_VISIBLE_DEVICES=0"))
    assert _pa(report) == [("PA039", "warning", "CUDA_VISIBLE_DEVICES", 2, "schema")]
    assert _message(report, "PA039") == EXTERNAL_SAME.format(how="CUDA_VISIBLE_DEVICES=0")


def test_co_located_ranks_without_their_own_devices_are_pa039(tmp_path: Path) -> None:
    report = _check(tmp_path, EXTERNAL.replace("CUDA_VISIBLE_DEVICES=1 ", ""))
    assert _pa(report) == [("PA039", "warning", "CUDA_VISIBLE_DEVICES", 2, "schema")]
    assert _message(report, "PA039") == EXTERNAL_SAME.format(
        how="no CUDA_VISIBLE_DEVICES: the machine's first GPUs"
    )


def test_two_processes_of_one_external_rank_are_pa031(tmp_path: Path) -> None:
    report = _check(tmp_path, EXTERNAL.replace("--data-parallel-rank 1", "--data-parallel-rank 0"))
    assert _pa(report) == [("PA031", "error", "data_parallel_rank", 2, "schema")]
    assert _message(report, "PA031") == (
        "servers 1, 2 of one vLLM data parallel launch all run DP rank 0 (server 1: rank 0 "
        "(data_parallel_rank 0); server 2: rank 0 (data_parallel_rank 0)): each rank has one place in the "
        "data parallel group, so they cannot both join it"
    )


def test_head_and_headless_node_on_one_ssh_host_share_its_gpus(tmp_path: Path) -> None:
    report = _check(tmp_path, TWO_NODES.replace("ssh 10.99.48.129", "ssh 10.99.48.128"))
    assert _pa(report) == [("PA039", "warning", "CUDA_VISIBLE_DEVICES", 2, "schema")]
    assert "run on one machine (<ssh 10.99.48.128>) and both use GPUs 0, 1:" in _message(report, "PA039")


def test_a_host_from_a_variable_is_no_one_machine(tmp_path: Path) -> None:
    report = _check(
        tmp_path, TWO_NODES.replace("ssh 10.99.48.129", "ssh $NODE").replace("ssh 10.99.48.128", "ssh $NODE")
    )
    assert [c for c, *_ in _pa(report)] == []


# SGLang data parallel attention over two nodes: NVIDIA Dynamo's SGLang multinode example (the prefill
# worker, https://docs.nvidia.com/dynamo/latest/backends/sglang/multinode-examples.html), in the gate.
SG_DPA = (GATE / "sglang_dp_attention_two_nodes_ssh.sh").read_text()
SG_NODE_2 = SG_DPA.index("ssh 10.0.0.2")


def _sglang(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "sg.sh"
    path.write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.10.post1", str(path)]
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _node_2(old: str, new: str) -> str:
    assert old in SG_DPA[SG_NODE_2:]
    return SG_DPA[:SG_NODE_2] + SG_DPA[SG_NODE_2:].replace(old, new, 1)


def test_sglang_dp_attention_over_two_nodes_is_clean(tmp_path: Path) -> None:
    report = _sglang(tmp_path, SG_DPA)
    assert _pa(report) == []
    assert _rows(report) == [("node_rank", False, ["0", "1"])]


def test_a_node_without_dp_attention_is_pa030(tmp_path: Path) -> None:
    report = _sglang(tmp_path, _node_2("  --enable-dp-attention ", "  "))
    assert _pa(report) == [("PA030", "error", "enable_dp_attention", 2, "schema")]
    assert _message(report, "PA030") == (
        "the 2 nodes of one multi-node launch disagree on enable_dp_attention: server 1 "
        "(<ssh 10.0.0.1>:1:1): true, server 2 (<ssh 10.0.0.2>:1:1): false (default)"
    )
    assert _rows(report)[0] == ("enable_dp_attention", True, ["true", "false (default)"])


def test_a_node_with_another_dp_size_is_pa030(tmp_path: Path) -> None:
    report = _sglang(tmp_path, _node_2("--dp-size 16", "--dp-size 8"))
    assert _pa(report) == [("PA030", "error", "dp_size", 2, "schema")]
    assert _rows(report)[0] == ("dp_size", True, ["16", "8"])


def test_one_script_for_both_machines_picking_its_line_by_a_condition_is_one_clean_launch(
    tmp_path: Path,
) -> None:
    # each start runs under its own condition (the machine it is on): the two are not one machine's
    at = "--data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345 &"
    head, headless = (
        f"vllm serve Qwen/Qwen3-30B-A3B {flags} {at}"
        for flags in ("--data-parallel-size 4 --data-parallel-size-local 2", HEADLESS.replace(" \\\n   ", ""))
    )
    lines = ["#!/bin/bash", 'if [ "$(hostname)" = node0 ]; then', f"  {head}", "fi"]
    lines += ['if [ "$(hostname)" = node1 ]; then', f"  {headless}", "fi", "wait", ""]
    report = _check(tmp_path, "\n".join(lines))
    assert (len(report["servers"]), _pa(report)) == (2, [])
    assert [launch["servers"] for launch in report["multinode"]["launches"]] == [[1, 2]]
    # the same two lines without the conditions run on one machine, on the same GPUs
    report = _check(tmp_path, "\n".join(["#!/bin/bash", head, headless, "wait", ""]))
    assert _pa(report) == [("PA039", "warning", "CUDA_VISIBLE_DEVICES", 2, "schema")]
