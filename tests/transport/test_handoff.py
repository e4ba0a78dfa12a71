"""A script that hands a launch file to the program that runs it (``layers/transport/handoff.py``):
``kubectl apply -f FILE`` of a file the script wrote from a here-document, of the here-document on its own
stdin (``-f -``), of a file on disk; ``podman kube play``. Before, each of these was SH019 "no server start
found" and the manifest's servers were never read (tchangkiat/aws-cdk-stacks' install script,
tests/data/heredoc_manifest/, is the real case; the scripts here are its variants).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argtrace.layers.transport.handoff import HandOff, hand_off
from tests.conftest import run_cli

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "{model}", "--max-model-len", "4096"{extra}]
"""


def _check(tmp_path: Path, script: str, *extra: str) -> dict[str, Any]:
    (tmp_path / "deploy.sh").write_text(script)
    result = run_cli(
        ["check", "--format", "json", "--no-shellcheck", "--no-resolve", *extra, "deploy.sh"], tmp_path
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _codes(report: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(f["code"], f["severity"], f["at"]) for f in report["findings"]]


def test_a_here_document_on_kubectl_stdin_is_read_with_the_script_lines(tmp_path: Path) -> None:
    manifest = DEPLOYMENT.format(model="$MODEL", extra=', "--gpu-memory-utilisation", "0.9"')
    script = f"#!/bin/bash\nMODEL=Qwen/Qwen3-8B\nkubectl -n llm apply -f - <<EOF\n{manifest}EOF\n"
    report = _check(tmp_path, script)
    # the unquoted here-document is expanded by the script's shell: $MODEL is the script's value
    assert [s["argv"][3:5] for s in report["servers"]] == [["--model", "Qwen/Qwen3-8B"]]
    # line 14 of deploy.sh is the args line inside the here-document
    assert ("PA001", "error", "deploy.sh:14") in _codes(report)
    [hop] = report["transport"]["hops"]
    assert hop == {
        "at": "deploy.sh:3:1",
        "via": "kubectl apply",
        "files": [{"file": "-", "read": "the here-document on stdin at deploy.sh:4"}],
    }


def test_the_fix_of_a_manifest_inside_a_script_is_an_edit_of_the_script_and_verified(tmp_path: Path) -> None:
    manifest = DEPLOYMENT.format(model="Qwen/Qwen3-8B", extra=', "--gpu-memory-utilisation", "0.9"')
    (tmp_path / "deploy.sh").write_text(f"kubectl apply -f - <<'EOF'\n{manifest}EOF\n")
    result = run_cli(["fix", "--no-shellcheck", "deploy.sh"], tmp_path)
    assert (
        '-        args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--gpu-memory-utilisation"'
        in (result.stdout)
    )
    assert (
        '+        args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--gpu-memory-utilization"'
        in (result.stdout)
    )
    assert "fixed: PA001 deploy.sh:12: Write --gpu-memory-utilization instead of" in result.stderr


def test_a_quoted_delimiter_keeps_the_dollar_words_for_the_container(tmp_path: Path) -> None:
    manifest = DEPLOYMENT.format(model="$MODEL", extra="")
    report = _check(
        tmp_path, f"MODEL=Qwen/Qwen3-8B\ncat > vllm.yaml <<'EOF'\n{manifest}EOF\nkubectl apply -f vllm.yaml\n"
    )
    # kubectl sends `$MODEL` as written; Kubernetes expands only $(NAME), so the server gets the word itself
    assert [s["argv"][3:5] for s in report["servers"]] == [["--model", "$MODEL"]]
    [hop] = report["transport"]["hops"]
    assert hop["files"] == [{"file": "vllm.yaml", "read": "written by the script at deploy.sh:3"}]


def test_appended_writes_are_read_in_order_under_the_file_name(tmp_path: Path) -> None:
    head, _, tail = DEPLOYMENT.format(model="m", extra="").partition("spec:\n  template")
    script = (
        f"cat <<EOF > v.yaml\n{head}EOF\n"
        f"cat <<EOF >> v.yaml\nspec:\n  template{tail}EOF\n"
        "kubectl apply -f v.yaml\n"
    )
    report = _check(tmp_path, script)
    assert [s["argv"][3:7] for s in report["servers"]] == [["--model", "m", "--max-model-len", "4096"]]
    # two here-documents wrote it: its lines are the file's own, not the script's
    assert report["transport"]["hops"][0]["files"] == [
        {"file": "v.yaml", "read": "written by the script (deploy.sh)"}
    ]
    assert report["servers"][0]["at"] == "v.yaml (written by deploy.sh):11"


def test_tee_writes_and_a_later_directory_change_are_followed(tmp_path: Path) -> None:
    (tmp_path / "k8s").mkdir()
    manifest = DEPLOYMENT.format(model="m", extra="")
    script = f"cd k8s\ntee vllm.yaml > /dev/null <<EOF\n{manifest}EOF\nkubectl apply -f ./vllm.yaml\n"
    report = _check(tmp_path, script)
    assert len(report["servers"]) == 1
    assert report["transport"]["hops"][0]["files"][0]["read"] == "written by the script at deploy.sh:3"


def test_a_file_on_disk_is_read_where_the_command_runs(tmp_path: Path) -> None:
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "vllm.yaml").write_text(
        DEPLOYMENT.format(model="m", extra=', "--max-num-sequences", "8"')
    )
    report = _check(tmp_path, "set -e\nkubectl apply -f k8s/vllm.yaml\n")
    assert len(report["servers"]) == 1
    # the finding points into the manifest itself
    assert ("PA001", "warning", "k8s/vllm.yaml:11") in _codes(report)
    assert report["transport"]["hops"][0]["files"] == [
        {"file": "k8s/vllm.yaml", "read": str(tmp_path / "k8s/vllm.yaml")}
    ]


def test_what_cannot_be_read_is_said_and_no_server_is_invented(tmp_path: Path) -> None:
    report = _check(
        tmp_path,
        "kubectl apply -f https://example.com/vllm.yaml\nkubectl apply -f missing.yaml\n"
        "kubectl apply -k overlays/prod\n",
    )
    assert report["servers"] == []
    assert [c for c, _s, _a in _codes(report)] == ["SH019"]
    hops = report["transport"]["hops"]
    assert [h["files"] for h in hops[:2]] == [
        [{"file": "https://example.com/vllm.yaml", "read": "a URL: not fetched"}],
        [{"file": "missing.yaml", "read": f"not written by the script nor found where it runs ({tmp_path})"}],
    ]
    assert hops[2]["unread"] == "a kustomization (check its directory's kustomization.yaml)"


def test_a_written_file_that_is_no_manifest_is_not_read_as_one(tmp_path: Path) -> None:
    report = _check(tmp_path, "cat > x.yaml <<EOF\nmodel: m\nport: 8000\nEOF\nkubectl apply -f x.yaml\n")
    assert report["transport"]["hops"][0]["files"] == [
        {"file": "x.yaml", "read": "not a Kubernetes manifest"}
    ]
    assert report["servers"] == []


def test_which_commands_hand_a_file_on() -> None:
    assert hand_off(["kubectl", "apply", "-f", "a.yaml", "--filename=b.yaml", "-fc.yaml"]) == HandOff(
        "kubectl apply", ("a.yaml", "b.yaml", "c.yaml")
    )
    assert hand_off(["kubectl", "--context", "prod", "-n", "llm", "create", "-f", "-"]) == HandOff(
        "kubectl create", ("-",)
    )
    assert hand_off(["oc", "replace", "--force", "-f", "x.yaml"]) == HandOff("oc replace", ("x.yaml",))
    assert hand_off(["podman", "kube", "play", "pod.yaml"]) == HandOff("podman kube play", ("pod.yaml",))
    assert hand_off(["podman", "play", "kube", "pod.yaml"]) == HandOff("podman play kube", ("pod.yaml",))
    # objects made from words, reads and deletions hand no file on
    assert hand_off(["kubectl", "create", "secret", "generic", "hf", "--from-literal=token=x"]) is None
    assert hand_off(["kubectl", "delete", "-f", "x.yaml"]) is None
    assert hand_off(["kubectl", "get", "pods"]) is None
    assert hand_off(["kubectl", "apply", "-f", None]) == HandOff(
        "kubectl apply", (), unread="a file not known statically"
    )


COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.10.1
    command: --model ${MODEL} --max-model-len ${LEN:-4096} --tensor-parallel-size ${TP}
"""


def test_docker_compose_up_reads_the_default_file_with_the_scripts_exports(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    report = _check(tmp_path, "#!/bin/bash\nexport MODEL=Qwen/Qwen3-8B\nTP=2 docker compose up -d vllm\n")
    # compose fills ${MODEL} and ${TP} from the environment the script gives it, ${LEN:-4096} from its default
    assert [s["argv"][3:] for s in report["servers"]] == [
        ["--model", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--tensor-parallel-size", "2"]
    ]
    assert [c for c, _s, _a in _codes(report)] == ["PR008"]
    [hop] = report["transport"]["hops"]
    assert hop["via"] == "docker compose up"
    assert hop["files"] == [{"file": "compose.yaml", "read": str(tmp_path / "compose.yaml")}]


def test_a_value_the_script_computes_at_run_time_is_not_guessed(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    script = "export MODEL=m\nexport TP=$(nvidia-smi -L | wc -l)\ndocker-compose -f compose.yaml up\n"
    report = _check(tmp_path, script)
    assert report["servers"] == []
    assert report["transport"]["hops"][0]["files"] == [
        {
            "file": "compose.yaml",
            "read": "not read: it uses TP, set by the script to values not known statically",
        }
    ]
    assert [c for c, _s, _a in _codes(report)] == ["SH019"]


def test_a_compose_file_written_by_the_script_and_its_missing_default(tmp_path: Path) -> None:
    script = (
        "cat > docker-compose.yml <<'EOF'\n" + COMPOSE.replace("${TP}", "1") + "EOF\n"
        "MODEL=m docker compose up\n"
    )
    report = _check(tmp_path, script)
    assert [s["argv"][3:5] for s in report["servers"]] == [["--model", "m"]]
    assert report["servers"][0]["at"] == "deploy.sh:5"
    assert report["transport"]["hops"][0]["files"] == [
        {"file": "docker-compose.yml", "read": "written by the script at deploy.sh:2"}
    ]
    empty = _check(_empty_dir(tmp_path), "docker compose up -d\n")
    assert empty["transport"]["hops"][0]["files"] == [
        {
            "file": "<default>",
            "read": "none of compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml written by "
            "the script or where it runs",
        }
    ]


def _empty_dir(tmp_path: Path) -> Path:
    empty = tmp_path / "empty"
    empty.mkdir()
    return empty


def test_which_compose_commands_hand_a_file_on() -> None:
    assert hand_off(
        ["docker", "compose", "-f", "a.yml", "-p", "x", "up", "-d", "--scale", "vllm=2"]
    ) == HandOff("docker compose up", ("a.yml",), compose=True)
    assert hand_off(["docker-compose", "--file=b.yml", "create", "vllm"]) == HandOff(
        "docker-compose create", ("b.yml",), compose=True, service="vllm"
    )
    assert hand_off(["docker", "compose", "-f", "a.yml", "-f", "gpu.yml", "up"]) == HandOff(
        "docker compose up", ("a.yml", "gpu.yml"), unread="several compose files merged", compose=True
    )
    assert hand_off(["docker", "compose", "run", "vllm", "vllm", "serve", "m"]) == HandOff(
        "docker compose run",
        ("<default>",),
        unread="the command `run` gives the service instead of its own",
        compose=True,
        service="vllm",
    )
    assert hand_off(["docker", "compose", "logs", "-f"]) is None
    assert hand_off(["docker", "compose", "down"]) is None
    assert hand_off(["docker", "run", "--gpus", "all", "vllm/vllm-openai"]) is None


def test_a_piped_stdin_and_a_file_beside_the_script_are_said_not_read(tmp_path: Path) -> None:
    # boettiger-lab/k8s vllm/nimbus/up.sh: a secret piped to `kubectl apply -f -`, then files named
    # relative to the script's own directory while bash runs it from the caller's
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "deployment.yaml").write_text(DEPLOYMENT.format(model="m", extra=""))
    (tmp_path / "vllm" / "up.sh").write_text(
        "#!/bin/bash\nkubectl create secret generic k --from-literal=api-key=$KEY --dry-run=client -o yaml"
        " | kubectl apply -f -\nkubectl apply -f deployment.yaml\n"
    )
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--no-resolve", "vllm/up.sh"], tmp_path)
    report = json.loads(result.stdout)
    assert report["servers"] == []
    assert [h["files"] for h in report["transport"]["hops"]] == [
        [
            {
                "file": "-",
                "read": "its stdin is the output of `kubectl create secret generic ...`, which the script "
                "does not give statically (only cat, echo, printf and envsubst of known text are followed): "
                "not read",
            }
        ],
        [
            {
                "file": "deployment.yaml",
                "read": f"not written by the script nor found where it runs ({tmp_path}); deployment.yaml is "
                "beside the script: check from its directory (cd vllm && argtrace check ...)",
            }
        ],
    ]
    # from the script's directory, the manifest is read
    inside = run_cli(
        ["check", "--format", "json", "--no-shellcheck", "--no-resolve", "up.sh"], tmp_path / "vllm"
    )
    assert [s["argv"][3:5] for s in json.loads(inside.stdout)["servers"]] == [["--model", "m"]]
