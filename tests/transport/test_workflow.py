"""``argtrace check serve.yml``: a GitHub Actions workflow's ``run:`` steps (our own inputs): ``env:`` at
workflow, job and step level (the most specific wins), ``${{ }}`` expressions left unknown and said (TP087),
``${{ env.X }}`` filled in, ``$GITHUB_ENV`` names of earlier steps unknown, a non-shell ``shell:`` not read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import alarms, run_cli

FLOW = """on: push
env:
  MODEL: Qwen/Qwen3-0.6B
  PORT: "7000"
jobs:
  serve:
    runs-on: ubuntu-latest
    env:
      PORT: "8000"
    steps:
      - run: echo "LEN=4096" >> "$GITHUB_ENV"
      - name: start
        env:
          TP: ${{ matrix.tp }}
          NAME: ${{ env.MODEL }}
        run: |
          vllm serve $NAME --port $PORT --tensor-parallel-size "$TP" \\
            --max-model-len "$LEN" --served-model-name ${{ inputs.name }} &
      - shell: python
        run: print("vllm serve x")
"""


def check(tmp_path: Path, text: str) -> dict[str, Any]:
    (tmp_path / "serve.yml").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", "serve.yml"], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def test_told_apart() -> None:
    assert manifest_kind(FLOW.encode()) == "workflow"
    assert manifest_kind(
        b"name: x\nruns:\n  using: composite\n  steps:\n    - run: ls\n      shell: bash\n"
    ) == ("workflow")
    assert manifest_kind(b"on: push\nfoo: 1\n") is None


def test_env_levels_expressions_and_github_env(tmp_path: Path) -> None:
    report = check(tmp_path, FLOW)
    assert [f["code"] for f in alarms(report)] == []
    words = [[w["text"] for w in s["words"]] for s in report["servers"]]
    assert words == [
        [
            "vllm",
            "serve",
            "Qwen/Qwen3-0.6B",
            "--port",
            "8000",
            "--tensor-parallel-size",
            None,
            "--max-model-len",
            None,
            "--served-model-name",
            None,
        ]
    ]
    tp087 = next(f for f in report["findings"] if f["code"] == "TP087")
    assert tp087["severity"] == "info" and tp087["basis"] == "assumed"
    assert tp087["message"] == (
        "`${{ inputs.name }}`, `${{ matrix.tp }}`: GitHub Actions fills these in when the workflow runs; "
        "argtrace reads the value as unknown, and what the server makes of the words built from it is not "
        "checked"
    )
    assert report["servers"][0]["at"] == "serve.yml:17:1"
    hops = report["transport"]["hops"]
    assert [h.get("note") for h in hops] == [None, None, "shell python: not a shell script, not read"]
