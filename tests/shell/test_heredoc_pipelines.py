"""Here-documents on a line that goes on after them (``cat <<EOF | kubectl apply -f -``), compared with real
bash: the bodies are data, never script lines (tree-sitter-bash hung the rest of the line inside the first
here-document and argtrace read the bodies as commands: SH004 on a manifest's ``- name: v``); and what a
pipeline's producer writes (cat/echo/printf/envsubst of text the script gives) on the next part's stdin."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.transport import analyze_transport

SERVER = 'python3 -m sglang.launch_server --model-path m --port "$P"\n'


def predicted(script: str, tmp_path: Path) -> tuple[str | None, list[str]]:
    path = tmp_path / "launch.sh"
    path.write_text(script + SERVER)
    result = analyze_script(
        ScriptSource("launch.sh", path.read_bytes(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    port = result.servers[0].argv[-1].text if result.servers else None
    return port, [f.code for f in result.findings]


def real(script: str, tmp_path: Path) -> str | None:
    path = tmp_path / "real.sh"
    path.write_text(script + 'echo "$P"\n')
    done = subprocess.run(["bash", str(path)], capture_output=True, text=True, timeout=30, cwd=tmp_path)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if lines else None


BODY = "P=9\n- name: v\n"
CASES = [
    f"P=1\ncat <<A | cat >/dev/null\n{BODY}A\n",
    "P=1\ncat <<-A | cat >/dev/null\n\tP=9\n\t- name: v\n\tA\n",
    f"P=1\ncat <<'A' | cat >/dev/null\n{BODY}A\n",
    f'P=1\ncat <<"A" | cat >/dev/null\n{BODY}A\n',
    f"P=1\ncat <<A <<B | cat >/dev/null\n{BODY}A\nP=8\n- x\nB\n",  # two on one line
    f"P=1\necho x | cat <<A | cat >/dev/null\n{BODY}A\n",  # on the 2nd command
    f"P=1\necho x | cat | cat <<A >/dev/null\n{BODY}A\n",  # on the 3rd
    f"P=1\n: <<A && P=3\n{BODY}A\n",
    f"P=1\nfalse <<A || P=4\n{BODY}A\n",
    f"P=1\ncat <<A | cat >/dev/null; P=6\n{BODY}A\n",
    f"P=1\ncat <<A 2>/dev/null | cat >/dev/null\n{BODY}A\n",
    f"P=1\ncat <<A >/dev/null | cat >/dev/null\n{BODY}A\n",
    f"P=1\nQ=$(cat <<A | cat\n{BODY}A\n)\n",
    "P=$(cat <<A\n5\nA\n)\n",
    f"P=1\nif true; then\n  cat <<A | cat >/dev/null\n{BODY}A\nfi\n",
    f"P=1\nfor i in 1 2; do\n  cat <<A | cat >/dev/null\n{BODY}A\ndone\n",
    f"P=1\nf() {{\n  cat <<A | cat >/dev/null\n{BODY}A\n}}\nf\n",
    "P=1\ncat <<A | cat >/dev/null\n--port 9 \\ \n- x\nA\n",
    "P=1\ncat <<A | cat >/dev/null\n  $(( 1 << 2 ))\nA\nx=$(( 1 << 2 ))\nP=$x\n",
]


@pytest.mark.parametrize("body", CASES)
def test_as_bash_runs_it(body: str, tmp_path: Path) -> None:
    script = "#!/bin/bash\n" + body
    port, codes = predicted(script, tmp_path)
    assert port == real(script, tmp_path)
    assert codes == []


MANIFEST = """apiVersion: v1
kind: Pod
metadata: {name: v}
spec:
  containers:
  - name: v
    image: vllm/vllm-openai:v0.10.2
    args: ["--model", "$MODEL", "--max-model-len", "4096"]
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # kubectl's files are read from where the script runs


def transport(script: str, tmp_path: Path) -> tuple[list[list[str | None]], list[dict[str, object]]]:
    path = tmp_path / "deploy.sh"
    path.write_text(script)
    (tmp_path / "m.yaml").write_text(MANIFEST)
    source = ScriptSource("deploy.sh", path.read_bytes(), path)
    shell = analyze_script(source, [], {}, arg0="deploy.sh", run_shellcheck=False, cwd=str(tmp_path))
    result = analyze_transport(source, shell, args=[], env={}, arg0="deploy.sh")
    files = [f for h in result.hops for f in h.get("files", [])]  # type: ignore[attr-defined]
    return [[getattr(w, "text", w) for w in s.argv] for s in result.servers], files


@pytest.mark.parametrize(
    ("script", "model"),
    [
        (
            "cat <<YAML | kubectl apply -f -\n" + MANIFEST.replace("$MODEL", "Qwen/Qwen3-8B") + "YAML\n",
            "Qwen/Qwen3-8B",
        ),
        ("export MODEL=Qwen/Qwen3-8B\nenvsubst < m.yaml | kubectl apply -f -\n", "Qwen/Qwen3-8B"),
        (
            "export MODEL=Qwen/Qwen3-8B\ncat m.yaml | envsubst '$MODEL' | kubectl apply -f -\n",
            "Qwen/Qwen3-8B",
        ),
        # not exported: envsubst's environment lacks it and replaces the reference by nothing (GNU gettext
        # manual, "envsubst Invocation")
        ("MODEL=Qwen/Qwen3-8B\nenvsubst < m.yaml | kubectl apply -f -\n", ""),
        (
            "export MODEL=x\nT=$(cat <<'E'\n"
            + MANIFEST
            + "E\n)\nprintf '%s\\n' \"$T\" | envsubst | kubectl create -f -\n",
            "x",
        ),
    ],
)
def test_a_pipe_into_kubectl_is_followed(script: str, model: str, tmp_path: Path) -> None:
    servers, _files = transport("#!/bin/bash\n" + script, tmp_path)
    assert len(servers) == 1
    argv = servers[0]
    assert argv[argv.index("--model") + 1] == model


# what a producer writes, compared with real bash and GNU envsubst: `P=$(...)` of a pipeline
PRODUCERS = [
    "export A=1\nP=$(echo 'a=$A' | envsubst)\n",
    "export A=1 B=2\nP=$(printf '%s' 'x$A-${B}-$C-${A:-d}-$$-\\$A' | envsubst)\n",
    "export A=1 B=2\nP=$(echo '$A $B' | envsubst '$B')\n",  # SHELL-FORMAT: only the names it lists
    "A=1\nP=$(echo \"[$A]\" '[$A]' | envsubst)\n",  # not exported: the reference becomes empty
    "P=$(A=5 envsubst <<'E'\nv=$A\nE\n)\n",  # a prefix assignment is in its environment
    "P=$(echo one | cat - <<< 'two')\n",  # its own here-string replaces the pipe
    "Q=7\nP=$(cat <<E | cat\nq=$Q\nE\n)\n",
    "P=$(printf 'p=%s\\n' 8 | cat)\n",
    "P=$(cat <<'E'\n$(nope)\nE\n)\n",
]


def analyzed(script: str, tmp_path: Path) -> Any:
    path = tmp_path / "launch.sh"
    path.write_text(script + SERVER)
    source = ScriptSource("launch.sh", path.read_bytes(), path)
    return analyze_script(source, [], {}, arg0="launch.sh", run_shellcheck=False, cwd=str(tmp_path))


@pytest.mark.parametrize("body", PRODUCERS)
def test_producers_as_bash_and_envsubst_give_them(body: str, tmp_path: Path) -> None:
    script = "#!/bin/bash\n" + body
    result = analyzed(script, tmp_path)
    (tmp_path / "real.sh").write_text(script + 'printf %s "$P" > value\n')
    subprocess.run(["bash", "real.sh"], capture_output=True, timeout=30, cwd=tmp_path, check=True)
    assert result.servers[0].argv[-1].text == (tmp_path / "value").read_text()


@pytest.mark.parametrize(
    "body",
    [
        "P=$(cat t.txt)\n",
        "P=$(cat t.txt | cat)\n",
        "export A=3\nP=$(envsubst < t.txt)\n",
        "P=$(echo one | cat - t.txt)\n",
    ],
)
def test_a_file_read_for_a_value_stays_the_run_times(body: str, tmp_path: Path) -> None:
    """`$(cat port.txt)` is the machine's at run time (PR103's example): only a runner's input is read."""
    (tmp_path / "t.txt").write_text("t=$A\n")
    assert analyzed("#!/bin/bash\n" + body, tmp_path).servers[0].argv[-1].text is None


@pytest.mark.parametrize("path", ["/proc/self/comm", "/etc/hostname", "/dev/null"])
def test_the_machines_own_state_is_not_read_into_a_pipe(path: str, tmp_path: Path) -> None:
    """What this machine's /proc, /sys, /dev, /run or hostname says is not the node's (/proc/kmsg blocks)."""
    _servers, files = transport(f"#!/bin/bash\ncat {path} | kubectl apply -f -\n", tmp_path)
    assert files == [
        {
            "file": "-",
            "read": f"its stdin is the output of `cat {path}`, which the script does not give statically "
            "(only cat, echo, printf and envsubst of known text are followed): not read",
        }
    ]


def test_an_unexported_variable_envsubst_reads_is_reported(tmp_path: Path) -> None:
    """SH054, a warning resting on the caller's environment (an exported MODEL keeps its attribute)."""
    path = tmp_path / "deploy.sh"
    path.write_text(
        "#!/bin/bash\nMODEL=Qwen/Qwen3-8B\nenvsubst < m.yaml > pod.yaml\nkubectl apply -f pod.yaml\n"
    )
    (tmp_path / "m.yaml").write_text(MANIFEST)
    source = ScriptSource("deploy.sh", path.read_bytes(), path)
    shell = analyze_script(source, [], {}, arg0="deploy.sh", run_shellcheck=False, cwd=str(tmp_path))
    sh054 = [f for f in shell.findings if f.code == "SH054"]
    assert [(f.severity, f.at, f.setting, f.rests_on) for f in sh054] == [
        ("warning", "deploy.sh:3:1", "MODEL", "assumed")
    ]
    assert sh054[0].message.startswith(
        "envsubst replaces $MODEL by nothing: the script sets MODEL ('Qwen/Qwen3-8B') at deploy.sh:2:1 "
        "without exporting it"
    )
    # the file envsubst writes is what kubectl applies: the model word is empty there
    result = analyze_transport(source, shell, args=[], env={}, arg0="deploy.sh")
    argv = [getattr(w, "text", w) for w in result.servers[0].argv]
    assert argv[argv.index("--model") + 1] == ""


SERVE = "python3 -m sglang.launch_server --model-path m --port 30000\n"


@pytest.mark.parametrize(
    "line",
    [
        "cat launch.sh | bash -s",
        "bash < launch.sh",
        "bash -s <<'E'\n" + SERVE + "E",
        "cat <<'E' | bash\n" + SERVE + "E",
        "echo 'python3 -m sglang.launch_server --model-path m --port 30000' | sh",
        "bash <<< 'python3 -m sglang.launch_server --model-path m --port 30000'",
    ],
)
def test_a_local_shell_reading_a_script_on_stdin_is_followed(line: str, tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text("#!/bin/bash\n" + SERVE)
    assert shell_servers("#!/bin/bash\n" + line + "\n", tmp_path) == [
        ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000"]
    ]


def shell_servers(script: str, tmp_path: Path) -> list[list[str | None]]:
    path = tmp_path / "start.sh"
    path.write_text(script)
    source = ScriptSource("start.sh", path.read_bytes(), path)
    shell = analyze_script(source, [], {}, arg0="start.sh", run_shellcheck=False, cwd=str(tmp_path))
    return [[w.text for w in s.argv] for s in shell.servers]


def test_bash_s_gives_its_words_to_the_script(tmp_path: Path) -> None:
    script = "#!/bin/bash\nP=9\nbash -s 30001 <<E\n" + SERVE.replace("30000", "\\$1 --x $P") + "E\n"
    assert shell_servers(script, tmp_path)[0][-4:] == ["--port", "30001", "--x", "9"]


@pytest.mark.parametrize(
    ("line", "via"),
    [
        ("cat launch.sh | ssh node bash -s", "ssh stdin: the output of `cat launch.sh`"),
        ("cat <<'E' | ssh node\n" + SERVE + "E", "ssh stdin: the output of `cat <<'E'`"),
        ("ssh node bash -s < launch.sh", "ssh stdin < launch.sh"),  # as before
    ],
)
def test_a_script_piped_into_ssh_runs_on_the_node(line: str, via: str, tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text("#!/bin/bash\n" + SERVE)
    path = tmp_path / "deploy.sh"
    path.write_text("#!/bin/bash\n" + line + "\n")
    source = ScriptSource("deploy.sh", path.read_bytes(), path)
    shell = analyze_script(source, [], {}, arg0="deploy.sh", run_shellcheck=False, cwd=str(tmp_path))
    result = analyze_transport(source, shell, args=[], env={}, arg0="deploy.sh")
    assert [u["via"] for u in result.uploads] == [via]
    assert [[getattr(w, "text", w) for w in s.argv][-2:] for s in result.servers] == [["--port", "30000"]]


def test_an_unknown_producer_is_named_not_read(tmp_path: Path) -> None:
    servers, files = transport("#!/bin/bash\nhelm template x ./chart | kubectl apply -f -\n", tmp_path)
    assert servers == []
    assert files == [
        {
            "file": "-",
            "read": "its stdin is the output of `helm template x ./chart`, which the script does not give "
            "statically (only cat, echo, printf and envsubst of known text are followed): not read",
        }
    ]


def test_a_here_document_piped_into_docker_compose_f_minus(tmp_path: Path) -> None:
    compose = (
        "services:\n  s:\n    image: lmsysorg/sglang:v0.5.9\n"
        "    command: python3 -m sglang.launch_server --model-path m --port 30000\n"
    )
    script = "#!/bin/bash\ncat <<EOF | docker compose -f - up -d\n" + compose + "EOF\n"
    servers, files = transport(script, tmp_path)
    assert [s[-4:] for s in servers] == [["--model-path", "m", "--port", "30000"]]
    assert files == [{"file": "-", "read": "the output of `cat <<EOF` on stdin at deploy.sh:3"}]


@pytest.mark.parametrize(
    "consumer",
    ["kubectl create -f -", "oc apply -f -", "kubectl -n ns apply --filename=-", "podman kube play -"],
)
def test_the_runners_that_read_a_manifest_on_stdin(consumer: str, tmp_path: Path) -> None:
    """podman-kube-play(1): `podman kube play [options] file.yml|-`; kubectl's `-f -` in every spelling."""
    manifest = MANIFEST.replace("$MODEL", "Qwen/Qwen3-8B")
    servers, _files = transport(f"#!/bin/bash\ncat <<'EOF' | {consumer}\n{manifest}EOF\n", tmp_path)
    assert [s[s.index("--model") + 1] for s in servers] == ["Qwen/Qwen3-8B"]


def test_tee_writes_what_the_pipe_gives_it(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\nexport MODEL=Qwen/Qwen3-8B\n"
        "envsubst < m.yaml | tee pod.yaml >/dev/null\nkubectl apply -f pod.yaml\n"
    )
    servers, files = transport(script, tmp_path)
    assert [s[s.index("--model") + 1] for s in servers] == ["Qwen/Qwen3-8B"]
    assert files == [{"file": "pod.yaml", "read": "written by the script (deploy.sh)"}]
