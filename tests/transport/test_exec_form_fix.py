"""TP013's fix for a `$NAME` item of an exec-form list, written for its carrier (our own inputs): compose
runs the command through `sh -c` with the `$` doubled (compose turns `$$` into `$`, docker/compose#12468),
Kubernetes substitutes `$(NAME)` from the container's `env`. Shell syntax other than one reference keeps the
rule's generic fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run_cli


def tp013(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", name], cwd=tmp_path)
    report = result.json
    (found,) = [f for f in report["findings"] if f["code"] == "TP013"]
    return dict(found)


def test_compose_braced_reference_goes_through_sh_c(tmp_path: Path) -> None:
    found = tp013(
        tmp_path,
        "compose.yaml",
        'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["m", "--port", "$${PORT}"]\n',
    )
    # the image's entrypoint (v0.11.0's api_server module) is part of the command the shell runs, so the
    # fix replaces it
    assert found["fix"] == (
        "Run the command through a shell, which expands ${PORT} in the container: "
        '`entrypoint: ["sh", "-c", "exec python3 -m vllm.entrypoints.openai.api_server m --port '
        '\\"$${PORT}\\""]` in place of the image\'s, and '
        "no `command:`."
    )


def test_kubernetes_gets_its_own_reference_syntax(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: vllm\n"
        "    image: vllm/vllm-openai:v0.11.0\n    command: [vllm, serve, m, --port, $PORT]\n"
        "    env:\n    - name: PORT\n      value: '8000'\n"
    )
    found = tp013(tmp_path, "pod.yaml", manifest)
    assert found["fix"] == (
        "Write `$(PORT)` and give PORT in the container's `env`: Kubernetes substitutes it before the start "
        "(a variable only the image sets stays literal)."
    )


def test_other_shell_syntax_keeps_the_generic_fix(tmp_path: Path) -> None:
    found = tp013(
        tmp_path,
        "compose.yaml",
        'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["m", "&&", "echo"]\n',
    )
    assert found["fix"].startswith("Run a shell explicitly when you need one")


def test_compose_string_command_runs_no_shell_either(tmp_path: Path) -> None:
    """A `command:` string is split into words by compose itself (no `sh -c`), so `$${PORT:-30000}` reaches
    the server as the characters `${PORT:-30000}`: TP013, and argparse's refusal of the value follows from it
    (one cause, one finding)."""
    text = (
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.10.post1\n"
        "    command: python3 -m sglang.launch_server --model-path m --port $${PORT:-30000}\n"
    )
    (tmp_path / "compose.yaml").write_text(text)
    report = run_cli(["check", "--format", "json", "--no-resolve", "compose.yaml"], cwd=tmp_path).json
    (found,) = [f for f in report["findings"] if f["severity"] == "error"]
    assert found["code"] == "TP013"
    assert found["message"] == (
        "service sglang's `command:` string is an exec-form argv: no shell runs it, so '${PORT:-30000}' is "
        "passed to the program as a literal argument"
    )
    assert [(c["code"], c["message"]) for c in found["consequences"]] == [
        ("PA010", "argument --port: invalid int value: '${PORT:-30000}' (argparse exit 2)")
    ]


def test_compose_string_through_a_shell_is_left_alone(tmp_path: Path) -> None:
    text = (
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.10.post1\n"
        '    command: bash -c "python3 -m sglang.launch_server --model-path m --port $${PORT:-30000}"\n'
    )
    (tmp_path / "compose.yaml").write_text(text)
    report = run_cli(["check", "--format", "json", "--no-resolve", "compose.yaml"], cwd=tmp_path).json
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []
