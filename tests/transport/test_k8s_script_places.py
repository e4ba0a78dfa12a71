"""A container's ``sh -c`` script in a Kubernetes manifest (the pattern of vLLM's Kubernetes guide:
``command: ["/bin/sh", "-c"]`` with the script in ``args``) is read with the manifest's own lines and
columns (``kubernetes._first_line``, ``containers._container_servers``), so its findings point at the place
the user edits and ``fix`` edits the manifest. Before, they pointed into a label of their own
(``<kubernetes container vllm>:2:47``) that no editor opens. Where the script's characters are not the
file's (a folded block, an escape, a ``$(NAME)`` the kubelet expands, a here-document), the label stays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

HEAD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: q
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.2
        command: ["/bin/sh", "-c"]
"""
WRONG = "--gpu-memory-utilisation"


def _findings(tmp_path: Path, manifest: str) -> list[tuple[str, str]]:
    (tmp_path / "k.yaml").write_text(manifest)
    result = run_cli(["check", "--format", "json", "--no-resolve", "k.yaml"], tmp_path)
    report: dict[str, Any] = json.loads(result.stdout)
    return [(f["code"], f["at"]) for f in report["findings"] if f["code"] == "PA001"]


def test_a_literal_block_and_a_quoted_item_point_at_the_manifest_and_fix_it(tmp_path: Path) -> None:
    manifest = (
        HEAD + "        args:\n        - |\n          pip install foo\n"
        f"          vllm serve Qwen/Qwen3-8B --max-model-len 4096 {WRONG} 0.9\n"
        '      - name: other\n        image: vllm/vllm-openai:v0.10.2\n        command: ["/bin/sh", "-c"]\n'
        '        args: ["vllm serve Qwen/Qwen3-8B --max-num-seqs 8 --tensor-parallel-sizes 2"]\n'
    )
    lines = manifest.splitlines()
    assert lines[14].index(WRONG) + 1 == 57 and lines[18].index("--tensor-parallel-sizes") + 1 == 59
    assert _findings(tmp_path, manifest) == [("PA001", "k.yaml:15:57"), ("PA001", "k.yaml:19:59")]
    result = run_cli(["fix", "k.yaml"], tmp_path)
    assert (
        "+          vllm serve Qwen/Qwen3-8B --max-model-len 4096 --gpu-memory-utilization 0.9"
        in result.stdout
    )
    assert (
        '+        args: ["vllm serve Qwen/Qwen3-8B --max-num-seqs 8 --tensor-parallel-size 2"]'
        in result.stdout
    )
    assert "re-check of all edits together: 0 error(s)/warning(s) left" in result.stderr


def test_a_plain_item_points_at_its_column(tmp_path: Path) -> None:
    manifest = HEAD + f"        args:\n        - vllm serve m {WRONG} 0.9\n"
    assert _findings(tmp_path, manifest) == [("PA001", "k.yaml:13:24")]


def test_where_the_characters_are_not_the_files_the_script_keeps_its_label(tmp_path: Path) -> None:
    folded = HEAD + f"        args:\n        - >\n          vllm serve m\n          {WRONG} 0.9\n"
    assert _findings(tmp_path, folded) == [("PA001", "<kubernetes container vllm>:1:14")]
    escaped = HEAD + f'        args: ["vllm serve \\"m\\" {WRONG} 0.9"]\n'
    assert _findings(tmp_path, escaped) == [("PA001", "<kubernetes container vllm>:1:16")]
    expanded = (
        HEAD + "        env:\n        - {name: M, value: m}\n"
        f'        args: ["vllm serve $(M) {WRONG} 0.9"]\n'
    )
    assert _findings(tmp_path, expanded) == [("PA001", "<kubernetes container vllm>:1:14")]
    heredoc = (
        HEAD + "        args:\n        - |\n          cat <<EOF > /tmp/c\n          x\n          EOF\n"
        f"          vllm serve m {WRONG} 0.9\n"
    )
    assert _findings(tmp_path, heredoc) == [("PA001", "<kubernetes container vllm>:4:14")]
