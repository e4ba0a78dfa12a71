"""A shell script that writes a manifest through a here-document is a script, not a manifest
(``layers/transport/manifests._script_writing_yaml``).

Before, ``manifest_kind`` saw ``apiVersion:``/``kind:`` (or ``services:``) at the start of lines inside the
here-document and ``check`` refused the script: ``not valid YAML: mapping values are not allowed here``
(exit 2). A real case: tchangkiat/aws-cdk-stacks' ``install-vllm-meta-llama.sh``
(tests/data/heredoc_manifest/).
"""

from __future__ import annotations

import json
from pathlib import Path

from argtrace.layers.transport.manifests import _outside_heredocs, manifest_kind
from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "heredoc_manifest"
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n  containers:\n    - name: vllm\n"


def test_the_real_script_is_read_as_a_script_and_its_applied_manifest_followed() -> None:
    result = run_cli(["check", "--format", "json", "--no-resolve", str(DATA / "install-vllm-meta-llama.sh")])
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    # the server starts in the cluster from the manifest the script wrote (`kubectl apply -f`, handoff.py)
    assert [s["argv"] for s in report["servers"]] == [
        [
            "vllm",
            "serve",
            "meta-llama/Llama-3.2-1B-Instruct",
            "--max_num_batched_tokens",
            "2048",
            "--max_model_len",
            "2048",
        ]
    ]
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PR011", "info"), ("PR007", "info")]
    [hop] = report["transport"]["hops"]
    assert hop["via"] == "kubectl apply"
    assert hop["files"] == [
        {
            "file": "vllm-meta-llama.yaml",
            "read": f"written by the script at {DATA / 'install-vllm-meta-llama.sh'}:6",
        }
    ]


def test_manifest_keys_only_in_a_heredoc_body_make_no_manifest() -> None:
    script = "cat <<EOF > pod.yaml\n" + POD + "EOF\nkubectl apply -f pod.yaml\n"
    assert manifest_kind(script.encode()) is None
    compose = "cat > compose.yaml <<-'END'\nservices:\n  vllm:\n    image: vllm/vllm-openai\n\tEND\n"
    assert manifest_kind(compose.encode()) is None


def test_a_manifest_holding_a_heredoc_in_a_block_scalar_is_still_a_manifest() -> None:
    # valid YAML: its keys are outside any heredoc, and the heredoc (never terminated at column 0) is
    # part of a command string
    manifest = (
        POD + "      command: [sh, -c]\n      args:\n        - |\n          cat <<EOF > /tmp/c.json\n"
        "          {}\n          EOF\n          vllm serve m\n"
    )
    assert manifest_kind(manifest.encode()) == "kubernetes"
    # keys after an unterminated heredoc in valid YAML: the file parses, so it is a manifest
    late = "metadata: {name: x, note: 'cat <<EOF'}\n" + POD
    assert manifest_kind(late.encode()) == "kubernetes"


def test_a_broken_manifest_without_a_heredoc_is_still_refused_as_yaml(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD + "      args: [a, b\n")
    assert manifest_kind((tmp_path / "pod.yaml").read_bytes()) == "kubernetes"
    result = run_cli(["check", "--no-shellcheck", "--no-resolve", "pod.yaml"], cwd=tmp_path)
    assert result.status == 2 and "not valid YAML" in result.stderr


def test_heredoc_bodies_end_at_their_terminator_and_here_strings_are_no_heredoc() -> None:
    text = "a <<'X'\nbody\nX\nb <<<word\nc\nd <<-E\n\tinner\n\tE\ne"
    assert _outside_heredocs(text) == "a <<'X'\nb <<<word\nc\nd <<-E\ne"
