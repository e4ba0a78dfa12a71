"""The transport layer through the real CLI: ssh, uploads, bash -c, sudo, docker, compose, Kubernetes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport import (
    compose_interpolate,
    image_entrypoint,
    k8s_expand,
    manifest_kind,
    parse_docker_run,
    parse_ssh,
)
from tests.conftest import run_cli

HERE = Path(__file__).parent
MANIFESTS = HERE / "manifests"
SERVER = "/opt/venv/bin/python -m sglang.launch_server --model-path /models/qwen"


def check(*argv: str, cwd: Path | None = None) -> Any:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", *argv], cwd=cwd)
    assert result.status in (0, 1), result.stderr
    return result.json


def codes(report: Any, prefix: str = "TP") -> list[str]:
    return [f["code"] for f in report["findings"] if f["code"].startswith(prefix)]


def finding(report: Any, code: str) -> dict[str, Any]:
    return next(f for f in report["findings"] if f["code"] == code)


# ------------------------------------------------------------------------------------------ units


def test_parse_ssh_options_and_remote_words() -> None:
    call = parse_ssh(["ssh", "-p", "19248", "-o", "BatchMode=yes", "-tt", "root@gpu1", "cat", "> f"])
    assert call is not None
    assert (call.destination, call.port, call.options, call.remote) == (
        "root@gpu1",
        "19248",
        ("BatchMode=yes",),
        ("cat", "> f"),
    )
    call = parse_ssh(["ssh", "-p22", "-lalice", "-J", "bastion", "gpu1"])
    assert call is not None and (call.port, call.user, call.remote) == ("22", "alice", ())


def test_docker_run_parsing() -> None:
    run = parse_docker_run(
        [
            "docker",
            "run",
            "-it",
            "--rm",
            "--gpus",
            "all",
            "-e",
            "HF_TOKEN",
            "--env=X=1",
            "-p8000:8000",
            "--entrypoint",
            "",
            "vllm/vllm-openai:v0.33.0",
            "python3",
            "-m",
            "vllm.entrypoints.openai.api_server",
        ]
    )
    assert run is not None
    assert run.image == "vllm/vllm-openai:v0.33.0" and run.entrypoint == ()
    assert run.env == {"HF_TOKEN": None, "X": "1"}
    assert run.args[:2] == ["python3", "-m"]
    assert image_entrypoint("docker.io/vllm/vllm-openai:latest") == ("vllm", "serve")
    # inherited from the nvidia/cuda base image (data/image_entrypoints.json)
    sglang = image_entrypoint("lmsysorg/sglang:v0.5.10.post1-cu126")
    assert sglang == ("/opt/nvidia/nvidia_entrypoint.sh",)
    assert image_entrypoint("myorg/custom:1") is None


def test_compose_and_kubernetes_substitution() -> None:
    assert compose_interpolate("${A:-x} ${B-y} $C $$D ${E:+set}", {"C": "c", "E": "1"}) == (
        "x y c $D set",
        [],
    )
    assert compose_interpolate("--port ${PORT}", {}) == ("--port ", ["PORT"])
    assert k8s_expand("$(A)-$(B)-$$(A)", {"A": "1"}) == ("1-$(B)-$(A)", ["B"])


def test_manifest_kind_tells_manifests_from_framework_configs() -> None:
    assert manifest_kind(b"services:\n  a:\n    image: x\n") == "compose"
    assert manifest_kind(b"apiVersion: v1\nkind: Pod\n") == "kubernetes"
    assert manifest_kind(b"model-path: /m\nport: 30000\nservices: 3\n") is None  # an SGLang --config file
    assert manifest_kind(b"#!/bin/bash\nservices:\n") is None


# ------------------------------------------------------------------------------------------- ssh


def test_ssh_local_expansion_of_an_unset_variable_loses_the_value() -> None:
    report = check("--clean-env", "-c", f'ssh -p 19248 root@gpu1 "{SERVER} --port $PORT --tp 2"')
    assert "TP001" in codes(report)
    server = report["servers"][0]
    assert server["at"].startswith("<ssh root@gpu1>")
    # the node's shell never saw a value: --port takes --tp as its value
    assert server["argv"][-3:] == ["--port", "--tp", "2"]
    hop = report["transport"]["hops"][0]
    assert hop["via"] == "ssh" and hop["port"] == "19248"
    assert hop["remote_command"].endswith("--port  --tp 2")


def test_single_quotes_leave_the_expansion_to_the_node() -> None:
    report = check("--clean-env", "-c", f"ssh gpu1 '{SERVER} --port $PORT'")
    assert "TP001" not in codes(report) and "TP002" not in codes(report)
    # on the node PORT is unset too: the shell layer reports it for the remote command
    assert report["transport"]["hops"][0]["remote_command"].endswith("--port $PORT")


def test_value_set_by_the_script_is_read_from_the_prediction() -> None:
    report = check("-c", f'PORT=31000; ssh gpu1 "{SERVER} --port $PORT"')
    assert codes(report) == ["TP002"]
    assert "31000" in finding(report, "TP002")["message"]
    assert report["servers"][0]["argv"][-2:] == ["--port", "31000"]


def test_ssh_resplits_separate_words() -> None:
    report = check("-c", f'ssh gpu1 {SERVER} --served-model-name "qwen chat" --port 30000')
    assert "TP003" in codes(report)
    assert report["servers"][0]["argv"][-4:] == ["qwen", "chat", "--port", "30000"]


def test_bash_c_keeps_only_its_first_word_locally_and_remotely() -> None:
    assert "TP004" in codes(check("-c", f"bash -c {SERVER} --port 30000"))
    assert "TP004" in codes(check("-c", f'ssh gpu1 bash -c "{SERVER} --port 30000"'))
    assert "TP004" not in codes(check("-c", f"ssh gpu1 \"bash -c '{SERVER} --port 30000'\""))
    assert "TP004" not in codes(check("-c", "bash -c 'echo $1' _ hello"))


def test_non_interactive_ssh_environment() -> None:
    report = check("-c", 'ssh gpu1 "conda activate sglang && python -m sglang.launch_server --model-path /m"')
    assert codes(report).count("TP005") >= 1
    fixed = check(
        "-c",
        'ssh gpu1 "source /opt/conda/etc/profile.d/conda.sh && conda activate sglang && '
        'python -m sglang.launch_server --model-path /m"',
    )
    assert "TP005" not in codes(fixed)


def test_background_server_over_ssh() -> None:
    assert "TP009" in codes(check("-c", f'ssh gpu1 "nohup {SERVER} &"'))
    assert "TP009" not in codes(check("-c", f'ssh gpu1 "nohup {SERVER} > /w/log 2>&1 < /dev/null &"'))


def test_sudo_resets_the_environment() -> None:
    assert "TP006" in codes(check("-c", f"export SGLANG_ENABLE_SPEC_V2=1\nsudo {SERVER}"))
    kept = check("-c", f"sudo --preserve-env=SGLANG_ENABLE_SPEC_V2 {SERVER}")
    assert "TP006" not in codes(kept)


def test_sudo_finding_rests_on_the_default_sudoers() -> None:
    """TP006 says what it assumes (Debian's sudo and default sudoers) and is never an error."""
    from argtrace.layers.shell.wrapenv import sudo_defaults

    d = sudo_defaults()
    basis = f"{d.package}'s defaults with the /etc/sudoers of {d.system}; the machine's sudoers may differ"
    out = check("-c", "export CUDA_VISIBLE_DEVICES=0\nsudo python3 -m sglang.launch_server --model-path /m")
    (f,) = [f for f in out["findings"] if f["code"] == "TP006"]
    assert (f["severity"], f["basis"]) == ("warning", "assumed")
    assert f["message"].endswith(f"PATH becomes sudo's secure_path ({d.secure_path}) ({basis})")
    out = check("-c", "sudo -E python3 -m sglang.launch_server --model-path /m")
    (f,) = [f for f in out["findings"] if f["code"] == "TP006"]
    assert (f["severity"], f["basis"]) == ("info", "assumed")
    assert f["message"] == (
        f"sudo -E keeps the caller's variables but not PATH: `python3` is looked up on sudo's secure_path "
        f"({d.secure_path}), so a venv's or conda's `python3` first on the script's PATH is not the one that "
        f"runs (PYTHONPATH and LD_* are removed too: env_delete) ({basis})"
    )
    out = check("-c", "sudo -E /opt/venv/bin/python -m sglang.launch_server --model-path /m")
    assert "TP006" not in codes(out)


# ---------------------------------------------------------------------------------------- uploads

SEED_UPLOAD = (
    'ssh -p 19248 root@gpu1 "cat > /workspace/dflash/scripts/launch_mtp.sh" <<EOF\n'
    "#!/bin/bash\n"
    "export CUDA_VISIBLE_DEVICES=$1\n"
    f"exec {SERVER} --port $2 --mamba-scheduler-strategy extra_buffer --speculative-algorithm NEXTN\n"
    "EOF\n"
    'ssh -p 19248 root@gpu1 "bash /workspace/dflash/scripts/launch_mtp.sh 0 30000"\n'
)


def test_seed_heredoc_upload_expands_positionals_at_upload_time() -> None:
    report = check("--clean-env", "-c", SEED_UPLOAD)
    assert "TP007" in codes(report)
    upload = report["transport"]["uploads"][0]
    assert upload["path"] == "/workspace/dflash/scripts/launch_mtp.sh" and not upload["delimiter_quoted"]
    assert upload["expansions"] == ["$1", "$2"]
    # the uploaded file, as it is on the node: the positionals are gone
    assert "export CUDA_VISIBLE_DEVICES=\n" in upload["content"]
    assert "--port  --mamba" in upload["content"]
    # and that file, run later with "0 30000", starts a server without a port value
    server = report["servers"][0]
    assert server["at"].startswith("gpu1:/workspace/dflash/scripts/launch_mtp.sh")
    assert "30000" not in server["argv"]
    assert server["argv"][server["argv"].index("--port") + 1] == "--mamba-scheduler-strategy"


def test_quoted_delimiter_uploads_verbatim_and_the_later_run_gets_its_args() -> None:
    report = check("--clean-env", "-c", SEED_UPLOAD.replace("<<EOF", "<<'EOF'"))
    assert "TP007" not in codes(report)
    assert "--port $2" in report["transport"]["uploads"][0]["content"]
    server = report["servers"][0]
    assert server["argv"][server["argv"].index("--port") + 1] == "30000"


def test_scp_of_a_crlf_file(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_bytes(f"#!/bin/bash\r\n{SERVER} --port 30000\r\n".encode())
    report = check("-c", "scp -P 19248 launch.sh root@gpu1:/w/", cwd=tmp_path)
    assert "TP008" in codes(report)
    assert report["transport"]["uploads"][0]["path"] == "/w/launch.sh"
    (tmp_path / "launch.sh").write_bytes(f"#!/bin/bash\n{SERVER} --port 30000\n".encode())
    assert "TP008" not in codes(check("-c", "scp launch.sh gpu1:/w/launch.sh", cwd=tmp_path))


@pytest.mark.parametrize(
    "name",
    ["with space.sh", "it's.sh", "$HOME.sh", "new\nline.sh", "semi;colon.sh"],
)
def test_hostile_local_file_names_in_scp(tmp_path: Path, name: str) -> None:
    import shlex

    (tmp_path / name).write_bytes(b"echo hi\r\n")
    report = check("-c", f"scp {shlex.quote(name)} gpu1:/w/x.sh", cwd=tmp_path)
    assert "TP008" in codes(report)


# ----------------------------------------------------------------------------------------- docker


def test_docker_entrypoint_is_prepended() -> None:
    report = check("-c", "docker run --gpus all vllm/vllm-openai:latest vllm serve Qwen/Qwen3-8B --port 8000")
    assert "TP010" in codes(report)
    assert report["servers"][0]["argv"][:4] == ["vllm", "serve", "vllm", "serve"]
    ok = check("-c", "docker run --gpus all -e X=1 vllm/vllm-openai:latest Qwen/Qwen3-8B --port 8000")
    assert "TP010" not in codes(ok)
    assert ok["servers"][0]["argv"] == ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]


def test_the_image_path_is_unknown_not_missing() -> None:
    # vLLM's own docker quick-start: `vllm` comes from the image's PATH, which argtrace does not read.
    report = check(
        "-c",
        "docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface --env "
        '"HUGGING_FACE_HUB_TOKEN=$HF_TOKEN" -p 8000:8000 --ipc=host vllm/vllm-openai:latest '
        "--model mistralai/Mistral-7B-v0.1",
    )
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == []
    assert finding(report, "PR007")["message"] == (
        "`vllm` is looked up on a PATH not known here (set by vllm/vllm-openai:latest's ENV lines, not read "
        "here); the framework version it runs could not be read"
    )
    assert report["process"]["env"]["PATH"] is None


def test_docker_over_ssh() -> None:
    report = check(
        "-c",
        'ssh gpu1 "docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server '
        '--model-path /m --port 30000"',
    )
    assert report["servers"][0]["argv"][-2:] == ["--port", "30000"]
    assert "TP005" not in codes(report)  # python3 runs in the container, not in the ssh session


# -------------------------------------------------------------------------------------- manifests


def copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copy(MANIFESTS / name, tmp_path / name))


def test_vllm_kubernetes_guide_sh_c(tmp_path: Path) -> None:
    copy("vllm-k8s-gpu.yaml", tmp_path)
    report = check("vllm-k8s-gpu.yaml", cwd=tmp_path)
    assert not [c for c in codes(report) if c in ("TP010", "TP011", "TP012", "TP013")]
    server = report["servers"][0]
    assert server["argv"][:3] == ["vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.3"]
    assert report["transport"]["hops"][0]["via"] == "kubernetes"
    # The guide is correct: nothing above info (the image's PATH is unknown, not missing, inside `sh -c`).
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == []
    assert report["process"]["env"]["PATH"] is None


def test_kubernetes_args_list(tmp_path: Path) -> None:
    copy("vllm-k8s-args.yaml", tmp_path)
    report = check("vllm-k8s-args.yaml", cwd=tmp_path)
    found = codes(report)
    assert found.count("TP012") == 1 and "TP011" in found
    assert "$(VLLM_SERVE_PORT)" in finding(report, "TP012")["message"]
    argv = report["servers"][0]["argv"]
    assert argv[:3] == ["vllm", "serve", "meta-llama/Llama-3.2-3B-Instruct"]
    assert "$(VLLM_SERVE_PORT)" in argv and "--dtype half" in argv and "8192" in argv


def test_sglang_kubernetes_command_and_args(tmp_path: Path) -> None:
    copy("sglang-k8s.yaml", tmp_path)
    report = check("sglang-k8s.yaml", "--container", "meta-llama-31-8b-instruct-sglang", cwd=tmp_path)
    assert codes(report) == []
    assert report["servers"][0]["argv"][:3] == ["python3", "-m", "sglang.launch_server"]
    assert report["servers"][0]["argv"][-2:] == ["--port", "30000"]
    bad = run_cli(["check", "sglang-k8s.yaml", "--container", "nope"], cwd=tmp_path)
    assert bad.status == 2 and "no container named" in bad.stderr


def test_harbor_compose_interpolation(tmp_path: Path) -> None:
    copy("harbor-sglang-compose.yaml", tmp_path)
    report = check(
        "--clean-env",
        "--env",
        "HARBOR_SGLANG_MODEL=Qwen/Qwen3-8B",
        "harbor-sglang-compose.yaml",
        cwd=tmp_path,
    )
    unset = {f["message"].split("}")[0] for f in report["findings"] if f["code"] == "TP012"}
    assert "${HARBOR_SGLANG_EXTRA_ARGS" in unset and "${HARBOR_HF_TOKEN" in unset
    server = report["servers"][0]
    assert server["argv"][:3] == ["python3", "-m", "sglang.launch_server"]
    assert server["argv"][3:5] == ["--model-path", "Qwen/Qwen3-8B"]


def test_vllm_compose_list_items(tmp_path: Path) -> None:
    copy("vllm-compose.yaml", tmp_path)
    report = check(
        "--env",
        "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz",
        "vllm-compose.yaml",
        "--service",
        "vllm",
        cwd=tmp_path,
    )
    found = codes(report)
    assert "TP010" in found and "TP011" in found
    assert report["servers"][0]["argv"][:3] == ["vllm", "serve", "serve"]
    assert "hf_abcdefghijklmnopqrstuvwxyz" not in str(report)  # redacted
    bad = run_cli(["check", "vllm-compose.yaml", "--service", "nope"], cwd=tmp_path)
    assert bad.status == 2 and "no service named" in bad.stderr


def test_script_on_ssh_stdin(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(f"#!/bin/bash\n{SERVER} --port $2\n")
    report = check("--clean-env", "-c", "ssh gpu1 'bash -s -- 0 30000' < launch.sh", cwd=tmp_path)
    assert report["servers"][0]["at"].startswith("gpu1:<stdin>")
    assert report["servers"][0]["argv"][-2:] == ["--port", "30000"]
    login = check("--clean-env", "-c", "ssh gpu1 < launch.sh", cwd=tmp_path)
    assert login["servers"][0]["argv"][-1] == "--port"  # the login shell has no $2
    heredoc = check("--clean-env", "-c", f"ssh gpu1 bash -s <<EOF\n{SERVER} --port $2\nEOF\n")
    assert "TP007" in codes(heredoc)


def test_scp_upload_then_run(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(f"#!/bin/bash\n{SERVER} --port $2\n")
    report = check(
        "--clean-env",
        "-c",
        "scp launch.sh gpu1:/w/launch.sh\nssh gpu1 'bash /w/launch.sh 0 31000'",
        cwd=tmp_path,
    )
    assert report["servers"][0]["at"].startswith("gpu1:/w/launch.sh:2")
    assert report["servers"][0]["argv"][-2:] == ["--port", "31000"]
    hops = [h["via"] for h in report["transport"]["hops"]]
    assert "uploaded-script" in hops


def test_compose_reads_the_dotenv_file_next_to_it(tmp_path: Path) -> None:
    copy("harbor-sglang-compose.yaml", tmp_path)
    (tmp_path / ".env").write_text(
        "# harbor defaults\nHARBOR_SGLANG_MODEL='Qwen/Qwen3-8B'\n"
        "HARBOR_SGLANG_EXTRA_ARGS=--tp 2  # two GPUs\n"
        "HARBOR_SGLANG_VERSION=latest\nHARBOR_CONTAINER_PREFIX=h\nHARBOR_HF_CACHE=~/.cache\n"
        "HARBOR_SGLANG_HOST_PORT=34091\nHARBOR_HF_TOKEN=\n"
    )
    report = check("--clean-env", "harbor-sglang-compose.yaml", cwd=tmp_path)
    assert "TP012" not in codes(report)
    assert report["servers"][0]["argv"][-2:] == ["--tp", "2"]


def test_options_after_the_destination() -> None:
    call = parse_ssh(["ssh", "gpu1", "-p", "2222", "-t", "python3", "-V"])
    assert call is not None and (call.destination, call.port, call.remote) == (
        "gpu1",
        "2222",
        ("python3", "-V"),
    )
    call = parse_ssh(["ssh", "gpu1", "--", "-x"])
    assert call is not None and call.remote == ("-x",)


def test_remote_glob_quoted_for_the_node_is_not_resplitting() -> None:
    assert "TP003" not in codes(check("-c", "ssh gpu1 ls '/w/logs/*.log'"))


ODD_COMMANDS = [
    "ssh",
    "ssh -p",
    "ssh gpu1",
    "ssh -- -gpu1 'echo hi'",
    "ssh gpu1 ''",
    'ssh gpu1 "$(echo python3) -m sglang.launch_server --model-path /m"',
    "ssh gpu1 'unterminated \"quote'",
    "ssh gpu1 \"cat > '/w/a b.sh'\" <<EOF\necho $1 `date` $(( 1 + 2 ))\nEOF\n",
    'ssh gpu1 "cat > /w/x.sh" <<-EOF\n\techo ${1:-0} \\$HOME\n\tEOF\n',
    "ssh gpu1 bash -c",
    "ssh gpu1 ssh gpu2 ssh gpu3 'python3 -m sglang.launch_server --model-path /m'",
    "scp",
    "scp -r dir gpu1:",
    "scp gpu1:/a gpu2:/b",
    "rsync -avz -e 'ssh -p 2222' ./ gpu1:/w/",
    "docker",
    "docker run",
    "docker run -it",
    "docker run --entrypoint= vllm/vllm-openai",
    "docker run -e vllm/vllm-openai",
    "docker compose up -d",
    "podman run --rm lmsysorg/sglang:latest sh -c 'python3 -m sglang.launch_server --model-path /m'",
    "sudo",
    "sudo -u svc -E vllm serve /m",
    "bash -c",
    "bash -lc 'vllm serve /m' _ --port 1",
    'for h in gpu1 gpu2; do ssh $h "vllm serve /m --port $PORT"; done',
    "if ssh gpu1 true; then ssh gpu1 'nohup vllm serve /m > /tmp/l 2>&1 &'; fi",
    "ssh gpu1 $'python3 -m sglang.launch_server --model-path /m\\t--port 1'",
    'ssh gpu1 "python3 -m sglang.launch_server --model-path /m --port \\"$P\\""',
]


@pytest.mark.parametrize("command", ODD_COMMANDS)
def test_odd_commands_never_crash(command: str) -> None:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--clean-env", "-c", command])
    assert result.status in (0, 1), result.stderr
    assert "internal error" not in result.stderr
    hops = result.json.get("transport", {}).get("hops", [])
    assert not [h for h in hops if "error" in h], hops


@pytest.mark.parametrize(
    "text",
    [
        "services:\n",
        "services: []\n",
        "services:\n  a: null\n",
        "services:\n  a:\n    command: 3\n    entrypoint: [1, 2]\n    environment: [A, B=2]\n",
        "apiVersion: v1\nkind: Pod\n",
        "apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a}]\n",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n"
        "  spec: {containers: [{name: x, image: vllm/vllm-openai, args: [--x]}]}\n",
        "apiVersion: batch/v1\nkind: CronJob\n"
        "spec: {jobTemplate: {spec: {template: {spec: {containers: []}}}}}\n",
    ],
)
def test_odd_manifests_never_crash(tmp_path: Path, text: str) -> None:
    (tmp_path / "m.yaml").write_text(text)
    result = run_cli(["check", "--format", "json", "m.yaml"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr


def test_invalid_yaml_manifest_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("services:\n  a: [\n")
    result = run_cli(["check", "m.yaml"], cwd=tmp_path)
    assert result.status == 2 and "not valid YAML" in result.stderr


def _history(report: Any, name: str) -> list[dict[str, Any]]:
    setting = next(s for s in report["settings"] if s["name"] == name)
    return list(setting["history"])


def test_settings_history_starts_with_the_transport_layer() -> None:
    report = check("-c", 'P=31000; ssh gpu1 "vllm serve /m --port $P --max-model-len 8192"')
    port = _history(report, "port")
    assert [h["layer"] for h in port][:2] == ["transport", "shell"]
    assert port[0]["value"] == "31000" and port[0]["written"] == "$P" and port[0]["at"] == "<-c>:1:10"


def test_seed_upload_history_shows_the_lost_port() -> None:
    report = check("--clean-env", "-c", SEED_UPLOAD)
    port = _history(report, "port")
    assert port[0]["layer"] == "transport" and port[0]["value"] is None and port[0]["known"] is False
    assert port[0]["written"] == "$2" and port[0]["at"] == "<-c>:4"


def test_tmux_and_screen_sessions() -> None:
    report = check("-c", f"export CUDA_VISIBLE_DEVICES=1\ntmux new -d -s sg '{SERVER} --port 30000'")
    assert "TP014" in codes(report)
    assert report["servers"][0]["argv"][-2:] == ["--port", "30000"]
    keys = check("-c", "tmux send-keys -t sg 'vllm serve /m --port 8000' Enter")
    assert keys["servers"][0]["argv"] == ["vllm", "serve", "/m", "--port", "8000"]
    screen = check("-c", f"screen -dmS sg {SERVER} --port 30001")
    assert screen["servers"][0]["argv"][-1] == "30001" and "TP014" not in codes(screen)


def test_secrets_copied_by_the_journey_are_masked(tmp_path: Path) -> None:
    token = "hf_" + "s3cr3t" * 6
    report = check(
        "--clean-env",
        "--env",
        f"MY_API_KEY={token}",
        "-c",
        'ssh gpu1 "cat > /w/l.sh" <<EOF\nexport KEY=$MY_API_KEY\nvllm serve /m\nEOF\n'
        'ssh gpu1 "MY_API_KEY=$MY_API_KEY vllm serve /m --port 1"',
    )
    assert token not in str(report)
    (tmp_path / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n")
    copied = check("-c", "scp id_ed25519 gpu1:.ssh/", cwd=tmp_path)
    assert "PRIVATE KEY" not in str(copied)
    assert copied["transport"]["uploads"][0]["content"] is None


def test_interactive_shell_on_the_node_reads_bashrc() -> None:
    report = check("-c", "ssh gpu1 \"bash -ic 'python3 -m sglang.launch_server --model-path /m'\"")
    assert "TP005" not in codes(report)
    assert "TP005" not in codes(
        check("-c", 'ssh gpu1 "conda run -n sg python3 -m sglang.launch_server --model-path /m"')
    )


def test_kubernetes_value_from_and_env_from_are_expanded_in_the_cluster(tmp_path: Path) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: s\n    image: lmsysorg/sglang:latest\n"
        "    command: [python3, -m, sglang.launch_server, --model-path, $(MODEL), --port, $(PORT)]\n"
        "    env:\n    - name: MODEL\n      valueFrom: {configMapKeyRef: {name: cfg, key: model}}\n"
    )
    (tmp_path / "pod.yaml").write_text(pod)
    report = check("pod.yaml", cwd=tmp_path)
    assert [f["message"].split(")")[0] for f in report["findings"] if f["code"] == "TP012"] == ["$(PORT"]
    (tmp_path / "pod.yaml").write_text(pod + "    envFrom:\n    - configMapRef: {name: cfg}\n")
    assert "TP012" not in codes(check("pod.yaml", cwd=tmp_path))


def test_compose_shell_entrypoint_with_a_split_command(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  s:\n    image: lmsysorg/sglang:latest\n    entrypoint: [/bin/sh, -c]\n"
        "    command: python3 -m sglang.launch_server --model-path /m --port 30000\n"
    )
    report = check("compose.yaml", cwd=tmp_path)
    assert "TP004" in codes(report)


def test_text_view_of_the_transport_section() -> None:
    from rich.console import Console

    from argtrace.layers.transport import render_transport_section

    report = check("--clean-env", "-c", SEED_UPLOAD)
    console = Console(width=160, record=True)
    console.print(render_transport_section(report["transport"]))
    text = console.export_text()
    assert "the node's shell receives: bash /workspace/dflash/scripts/launch_mtp.sh 0 30000" in text
    assert "expanded locally: $1, $2" in text
    assert "--port  --mamba-scheduler-strategy extra_buffer" in text
