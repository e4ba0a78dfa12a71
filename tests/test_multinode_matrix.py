"""The matrix of a multi-node launch: the ``multinode`` JSON section (``layers/multinode.py``) and its text
view (``render/matrix.py``), through the real CLI.

The launches are the SGLang two-node launch of https://docs.sglang.ai/references/multi_node.html
(reconstructed) started over ssh, with one node changed, and the false-alarm gate's SGLang StatefulSet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argtrace.render.matrix import render_matrix_section
from tests.conftest import run_cli

SG = (
    'SG="python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct '
    '--dist-init-addr 172.16.4.52:20000 --nnodes 2"'
)
STS = Path(__file__).parent / "data" / "false_alarms" / "k8s" / "sglang_k8s_distributed_sts.yaml"


def _check(tmp_path: Path, name: str, text: str, *options: str) -> tuple[dict[str, Any], str]:
    path = tmp_path / name
    path.write_text(text)
    argv = ["check", "--no-resolve", *options, str(path)]
    as_json = run_cli([*argv[:1], "--format", "json", *argv[1:]])
    as_text = run_cli(argv)
    assert as_json.status in (0, 1) and as_text.status in (0, 1), as_json.stderr
    return json.loads(as_json.stdout), as_text.stdout


def _nodes(tmp_path: Path, second: str) -> tuple[dict[str, Any], str]:
    script = f"#!/bin/bash\n{SG}\nssh node0 $SG --tp 16 --node-rank 0 &\nssh node1 $SG {second} &\nwait\n"
    return _check(tmp_path, "nodes.sh", script, "--framework-version", "0.5.10.post1")


def test_a_row_per_setting_that_differs(tmp_path: Path) -> None:
    report, text = _nodes(tmp_path, "--tp 8 --node-rank 1 --dtype bfloat16")
    assert report["multinode"] == {
        "launches": [
            {
                "framework": "sglang",
                "servers": [1, 2],
                "columns": ["server 1", "server 2"],
                "rows": [
                    {"setting": "dtype", "must_agree": True, "values": ["auto (default)", "bfloat16"]},
                    {"setting": "tp_size", "must_agree": True, "values": ["16", "8"]},
                    {"setting": "node_rank", "must_agree": False, "values": ["0", "1"]},
                ],
            }
        ]
    }
    start = text.index("Multi-node launch")
    assert text[start:].splitlines()[:6] == [
        "Multi-node launch (sglang, servers 1, 2): 2 nodes",
        "    setting    server 1        server 2",
        "  -----------  --------------  --------",
        "  ! dtype      auto (default)  bfloat16",
        "  ! tp_size    16              8",
        "    node_rank  0               1",
    ]
    assert "  ! the nodes must agree on this setting" in text


def test_nodes_that_agree_show_only_their_ranks(tmp_path: Path) -> None:
    report, _ = _nodes(tmp_path, "--tp 16 --node-rank 1")
    launch = report["multinode"]["launches"][0]
    assert launch["rows"] == [{"setting": "node_rank", "must_agree": False, "values": ["0", "1"]}]


def test_statefulset_pods_are_the_columns(tmp_path: Path) -> None:
    report, text = _check(tmp_path, "sts.yaml", STS.read_text())
    launch = report["multinode"]["launches"][0]
    assert launch["columns"] == ["sglang-two-nodes-0", "sglang-two-nodes-1"]
    assert launch["rows"] == [{"setting": "node_rank", "must_agree": False, "values": ["0", "1"]}]
    assert "    setting    sglang-two-nodes-0  sglang-two-nodes-1" in text


def test_a_single_node_server_has_no_matrix(tmp_path: Path) -> None:
    report, text = _check(tmp_path, "one.sh", "#!/bin/bash\npython3 -m sglang.launch_server --model-path m\n")
    assert "multinode" not in report
    assert "Multi-node launch" not in text


def test_the_view_of_a_launch_without_differences() -> None:
    section = {"launches": [{"framework": "vllm", "servers": [1, 2], "columns": ["a", "b"], "rows": []}]}
    assert render_matrix_section(section) == (
        "Multi-node launch (vllm, servers 1, 2): 2 nodes\n  every setting is the same on every node"
    )


def test_secrets_in_the_matrix_are_redacted(tmp_path: Path) -> None:
    report, text = _nodes(tmp_path, "--tp 16 --node-rank 1 --api-key sk-live-zzzzzz9999999999secret")
    assert "sk-live" not in json.dumps(report) and "sk-live" not in text
    rows = report["multinode"]["launches"][0]["rows"]
    assert [r["setting"] for r in rows] == ["api_key", "node_rank"]
    assert rows[0]["values"][0] == "null (default)"
    assert rows[0]["values"][1].startswith("<redacted:")
