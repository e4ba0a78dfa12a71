"""Edits outside the launch file (issue 13's leftover): a cause written in a file the launch reads (a
``docker run --env-file``, a compose ``env_file:``, a framework ``--config`` YAML) or in a manifest's ``env``
gets its edit in that file at its real line:col, verified by re-checking the edited text in memory
(``argtrace.overlay``); ``argtrace fix``'s diff, applied with the real ``patch -p0``, gives a launch whose
``check`` no longer has the findings and has no error or warning."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch (scripts/ci_apt)")
SG10 = ("--no-resolve", "--framework-version", "0.5.10.post1")


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _fix_then_check(root: Path, launch: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``argtrace fix --format json`` (the report with each finding's edits, and the diff), the diff applied
    with the real patch, then ``check`` of the patched launch."""
    fixed = run_cli(["fix", "--format", "json", *SG10, launch], cwd=root)
    assert fixed.status == 1, fixed.stderr
    done = subprocess.run(
        ["patch", "-p0"],
        input=fixed.json["fix"]["diff"],
        text=True,
        cwd=root,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    after = run_cli(["check", "--format", "json", *SG10, launch], cwd=root)
    return fixed.json, after.json


def _edits(report: dict[str, Any]) -> dict[str, tuple[list[dict[str, Any]], bool | None]]:
    return {f"{f['code']} {f['at']}": (f["fix_edits"], f["fix_verified"]) for f in report["findings"]}


def _bad(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")]


@pytest.fixture(scope="module")
def docker_case(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A container started with an env file and a --config YAML (shared: fixed and re-checked once)."""
    root = tmp_path_factory.mktemp("docker")
    _write(
        root,
        {
            "run.sh": "#!/bin/bash\n"
            "docker run --gpus all --env-file srv/server.env lmsysorg/sglang:v0.5.10.post1 \\\n"
            "  python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --config srv/cfg.yaml\n",
            "srv/server.env": 'SGLANG_ENABLE_TORCH_COMPILE="1"\n'
            # a misspelt name (PR001; an SGL_ prefix is read since 0.5.3.post3: SGLang copies it, batch sgl18)
            "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKEN_PER_RANK=128\nCUDA_VISIBLE_DEVICES=3,3\n",
            "srv/cfg.yaml": "tp-size: 1\nmem_fraction_statc: 0.8  # the KV share\n",
        },
    )
    fixed, after = _fix_then_check(root, "run.sh")
    return root, fixed, after


def test_env_file_and_config_edits_name_those_files_and_their_lines(
    docker_case: tuple[Path, dict[str, Any], dict[str, Any]],
) -> None:
    _, fixed, _ = docker_case
    edits = _edits(fixed)
    unquote = [{"file": "srv/server.env", "start": "1:29", "end": "1:32", "replacement": "1"}]
    assert edits["TP017 srv/server.env:1"] == (unquote, True)
    assert edits["PR009 srv/server.env:1"] == (unquote, True)  # the quotes are its cause too
    assert edits["PR001 srv/server.env:2"] == (
        [
            {
                "file": "srv/server.env",
                "start": "2:1",
                "end": "2:46",
                "replacement": "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
            }
        ],
        True,
    )
    assert edits["PR006 srv/server.env:3"] == (
        [{"file": "srv/server.env", "start": "3:22", "end": "3:25", "replacement": "3"}],
        True,
    )
    assert edits["PA001 srv/cfg.yaml"] == (
        [{"file": "srv/cfg.yaml", "start": "2:1", "end": "2:19", "replacement": "mem-fraction-static"}],
        True,
    )
    pa001 = next(f for f in fixed["findings"] if f["code"] == "PA001")
    assert pa001["fix"] == (
        "Write mem-fraction-static instead of mem_fraction_statc at srv/cfg.yaml:2:1 (the --config file's "
        "key is the flag without its dashes)."
    )


def test_the_patched_env_and_config_files_check_clean(
    docker_case: tuple[Path, dict[str, Any], dict[str, Any]],
) -> None:
    root, _, after = docker_case
    assert (root / "srv" / "server.env").read_text() == (
        "SGLANG_ENABLE_TORCH_COMPILE=1\nSGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128\nCUDA_VISIBLE_DEVICES=3\n"
    )
    assert (root / "srv" / "cfg.yaml").read_text() == "tp-size: 1\nmem-fraction-static: 0.8  # the KV share\n"
    assert _bad(after) == []
    assert "--mem-fraction-static" in after["parser"]["argv"]


def test_a_config_path_relative_to_the_servers_directory_is_edited_there(tmp_path: Path) -> None:
    """``cd srv`` then ``--config cfg.yaml``: the findings name ``cfg.yaml`` as the command does, the edit
    and ``--write`` the file from here."""
    _write(
        tmp_path,
        {
            "run.sh": "#!/bin/bash\ncd srv\n"
            "python3 -m sglang.launch_server --model-path /m --config cfg.yaml\n",
            "srv/cfg.yaml": "mem-fraction-statc: 0.8\n",
        },
    )
    fixed = run_cli(["fix", "--write", *SG10, "run.sh"], cwd=tmp_path)
    assert fixed.status == 1, fixed.stderr
    assert fixed.stderr.splitlines() == [
        "fixed: PA001 cfg.yaml: Write mem-fraction-static instead of mem-fraction-statc at srv/cfg.yaml:1:1 "
        "(the --config file's key is the flag without its dashes).",
        "wrote srv/cfg.yaml (the old file is srv/cfg.yaml.orig)",
    ]
    assert (tmp_path / "srv" / "cfg.yaml").read_text() == "mem-fraction-static: 0.8\n"
    assert (tmp_path / "srv" / "cfg.yaml.orig").read_text() == "mem-fraction-statc: 0.8\n"


def test_a_check_alone_writes_nothing(tmp_path: Path) -> None:
    """Verification reads the edited text through the overlay, never from a file it wrote."""
    _write(tmp_path, {"a.env": "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKEN_PER_RANK=1\n"})
    command = (
        "docker run --env-file a.env lmsysorg/sglang:v0.5.10.post1 "
        "python3 -m sglang.launch_server --model-path /m"
    )
    report = run_cli(["check", "--format", "json", *SG10, "-c", command], cwd=tmp_path).json
    assert _edits(report)["PR001 a.env:1"][1] is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.env"]
    assert (tmp_path / "a.env").read_text() == "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKEN_PER_RANK=1\n"


def test_compose_env_file_and_environment_map_are_edited_where_the_names_are(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "compose.yaml": "services:\n"
            "  sglang:\n"
            "    image: lmsysorg/sglang:v0.5.10.post1\n"
            "    env_file:\n"
            "      - conf/sglang.env\n"
            "    environment:\n"
            '      SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKEN_PER_RANK: "1"\n'
            "    command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct\n",
            "conf/sglang.env": "SGLANG_GC_LOG=1\nCUDA_VISIBLE_DEVICES=0,0,1\n",
        },
    )
    fixed, after = _fix_then_check(tmp_path, "compose.yaml")
    edits = _edits(fixed)
    # the finding points at the service's command (line 8); the name is written at line 7
    assert edits["PR001 compose.yaml:8"] == (
        [
            {
                "file": "compose.yaml",
                "start": "7:7",
                "end": "7:52",
                "replacement": "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
            }
        ],
        True,
    )
    # the release's declared replacement (not a prefix rename): the same meaning
    assert edits["PR002 conf/sglang.env:1"] == (
        [{"file": "conf/sglang.env", "start": "1:1", "end": "1:14", "replacement": "SGLANG_LOG_GC"}],
        True,
    )
    assert edits["PR006 conf/sglang.env:2"][0][0]["replacement"] == "0,1"
    assert (tmp_path / "conf" / "sglang.env").read_text() == "SGLANG_LOG_GC=1\nCUDA_VISIBLE_DEVICES=0,1\n"
    assert _bad(after) == []


def test_kubernetes_env_and_a_one_item_flag_are_fixed_in_the_manifest(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "k8s.yaml": "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata:\n"
            "  name: sg\n"
            "spec:\n"
            "  template:\n"
            "    spec:\n"
            "      containers:\n"
            "        - name: sglang\n"
            "          image: lmsysorg/sglang:v0.5.10.post1\n"
            "          env:\n"
            "            - name: CUDA_VISIBLE_DEVICES\n"
            '              value: "0,0"\n'
            '          command: ["python3", "-m", "sglang.launch_server"]\n'
            "          args:\n"
            "            - --model-path\n"
            "            - Qwen/Qwen2.5-7B-Instruct\n"
            '            - "--tp-size 1"\n',
        },
    )
    fixed, after = _fix_then_check(tmp_path, "k8s.yaml")
    edits = _edits(fixed)
    one_word = [{"file": "k8s.yaml", "start": "18:16", "end": "18:27", "replacement": "--tp-size=1"}]
    assert edits["TP011 k8s.yaml:18"] == (one_word, True)
    # the parser's "--tp-size 1 is not a flag" follows from TP011 (causes.py one-word-item): one cause, one
    # edit, instead of a guess at a flag near it
    assert [k for k in edits if k.startswith("PA001")] == []
    (tp011,) = [f for f in fixed["findings"] if f["code"] == "TP011"]
    assert [(c["code"], c["message"].split(":")[0]) for c in tp011["consequences"]] == [
        ("PA001", "'--tp-size 1' (after Qwen/Qwen2.5-7B-Instruct) is not a value of any flag")
    ]
    assert edits["PR006 k8s.yaml:16"] == (
        [{"file": "k8s.yaml", "start": "13:23", "end": "13:26", "replacement": "0"}],
        True,
    )
    assert (
        (tmp_path / "k8s.yaml")
        .read_text()
        .endswith(
            '              value: "0"\n'
            '          command: ["python3", "-m", "sglang.launch_server"]\n'
            "          args:\n"
            "            - --model-path\n"
            "            - Qwen/Qwen2.5-7B-Instruct\n"
            '            - "--tp-size=1"\n'
        )
    )
    assert _bad(after) == []


def test_an_upload_here_document_gets_its_delimiter_quoted_and_the_node_gets_the_script_as_written(
    tmp_path: Path,
) -> None:
    """TP007 (the upload's ``<<EOF`` expands ``$2`` here, empty): ``<<'EOF'`` sends it verbatim; the patched
    script's upload holds ``$2`` and the node's run with its own arguments gives --port its value."""
    body = "/opt/venv/bin/python -m sglang.launch_server --model-path /models/qwen --port $2 --tp-size 1\n"
    _write(
        tmp_path,
        {
            "up.sh": '#!/bin/bash\nssh gpu1 "cat > /w/launch.sh" <<EOF\n'
            + body
            + "EOF\nssh gpu1 bash /w/launch.sh 0 30000\n"
        },
    )
    fixed = run_cli(["fix", "--clean-env", *SG10, "up.sh"], cwd=tmp_path)
    assert fixed.stderr.splitlines()[0] == (
        "fixed: TP007 up.sh:3: Quote the here-document's delimiter at up.sh:2:33 (`<<'EOF'`): the body is "
        "then sent as written, and the node's shell expands it when the script runs."
    )
    done = subprocess.run(["patch", "-p0"], input=fixed.stdout, text=True, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "up.sh").read_text().splitlines()[1] == "ssh gpu1 \"cat > /w/launch.sh\" <<'EOF'"
    after = run_cli(["check", "--format", "json", "--clean-env", *SG10, "up.sh"], cwd=tmp_path).json
    assert _bad(after) == []
    port = next(s for s in after["settings"] if s["flag"] == "--port")
    assert port["effective"] == 30000
