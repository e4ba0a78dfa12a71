"""The process layer on ServerCommands built directly (no shell layer)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.frameworks import installed
from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import (
    bundled_versions,
    choose_schema,
    compare_versions,
    load_schema,
    nearest_older,
    version_key,
)
from argtrace.layers.process import describe_process
from argtrace.model import EnvValue, Origin, ServerCommand

from ..parser.helpers import server, word

SG10 = "0.5.10.post1"
SG23 = "0.5.23"


def need(framework: str, version: str) -> None:
    if version not in bundled_versions(framework):
        pytest.skip(f"no bundled schema for {framework} {version}")


def inherited(value: str) -> EnvValue:
    return EnvValue(value, Origin(None, "environment"))


def run(srv: ServerCommand, version: str = SG10) -> tuple[object, list[tuple[str, str, str]]]:
    need(srv.framework, version)
    process, result = describe_process(srv, load_schema(srv.framework, version))
    return process, [(f.code, f.severity, f.message) for f in result.findings if f.code != "PR007"]


def test_env_holds_script_vars_and_framework_relevant_caller_vars_only() -> None:
    srv = server(
        ["--model-path", "/m"],
        env={
            "MODEL": "/m",
            "HOME": inherited("/root"),
            "EDITOR": inherited("vi"),
            "PATH": inherited("/usr/bin:/bin"),
            "NCCL_DEBUG": inherited("INFO"),
            "HF_TOKEN": inherited("hf_abcdefghijklmnopqrstuvwxyz"),
        },
    )
    process, findings = run(srv)
    assert process.env == {  # type: ignore[attr-defined]
        "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz",  # raw: renderers redact
        "MODEL": "/m",
        "NCCL_DEBUG": "INFO",
        "PATH": "/usr/bin:/bin",
    }
    assert process.argv[:3] == ("python3", "-m", "sglang.launch_server")  # type: ignore[attr-defined]
    assert findings == []


def test_removed_env_var_is_a_leftover_warning_inherited_info() -> None:
    need("sglang", SG23)
    srv = server(["--model-path", "/m"], env={"SGLANG_ENABLE_SPEC_V2": "1"})
    _, findings = run(srv, SG23)
    assert [(c, s) for c, s, _ in findings] == [("PR001", "warning")]
    # the releases that read it, from the release index (0.5.4.post3-0.5.20 since issue 15's releases)
    readers = release_index("sglang").releases_knowing_env("SGLANG_ENABLE_SPEC_V2")
    assert "0.5.10.post1" in readers and "0.5.23" not in readers
    assert findings[0][2] == (
        f"SGLANG_ENABLE_SPEC_V2 is read by sglang {', '.join(readers)} but not by sglang 0.5.23: the release "
        "ignores it"
    )
    srv = server(["--model-path", "/m"], env={"SGLANG_ENABLE_SPEC_V2": inherited("1")})
    _, findings = run(srv, SG23)
    assert [(c, s) for c, s, _ in findings] == [("PR001", "info")]
    assert findings[0][2].endswith("(inherited from the caller's environment)")


def test_env_var_only_newer_releases_read_is_an_error() -> None:
    # SGLANG_ENABLE_PP_SPEC is read from 0.5.21 on: on 0.5.10.post1 the feature it asks for is missing.
    srv = server(["--model-path", "/m"], env={"SGLANG_ENABLE_PP_SPEC": "1"})
    _, findings = run(srv)
    assert findings == [
        (
            "PR001",
            "error",
            "SGLANG_ENABLE_PP_SPEC is read by sglang 0.5.21, 0.5.22, 0.5.23 but not by sglang 0.5.10.post1: "
            "only newer releases read it",
        )
    ]


def test_misspelt_env_var_names_the_nearest() -> None:
    _, findings = run(server(["--model-path", "/m"], env={"SGLANG_ENABLE_SPEC_V3": "1"}))
    assert findings == [
        (
            "PR001",
            "warning",
            "SGLANG_ENABLE_SPEC_V3 looks like a sglang variable but sglang 0.5.10.post1 never reads it; "
            "the nearest name it reads is SGLANG_ENABLE_SPEC_V2",
        )
    ]


def test_env_var_that_also_builds_a_flag() -> None:
    need("vllm", "0.33.0")
    srv = server(
        ["/m", "--port", word("8000", 20, expansion="$VLLM_PORT")],
        entrypoint="vllm serve",
        env={"VLLM_PORT": "8000"},
    )
    _, findings = run(srv, "0.33.0")
    assert [(c, s) for c, s, _ in findings] == [("PR003", "warning")]
    assert "into --port (8000)" in findings[0][2]
    assert findings[0][2].startswith("VLLM_PORT is exported by the script, so vllm 0.33.0 reads it")


def test_forwarding_a_callers_framework_variable_into_its_flag_is_only_a_note() -> None:
    need("vllm", "0.33.0")
    srv = server(
        ["/m", "--api-key", word("sk-test-key-000000000000", 20, expansion='"$VLLM_API_KEY"')],
        entrypoint="vllm serve",
        env={"VLLM_API_KEY": inherited("sk-test-key-000000000000")},
    )
    _, findings = run(srv, "0.33.0")
    assert [(c, s) for c, s, _ in findings] == [("PR003", "info")]
    assert findings[0][2].startswith("VLLM_API_KEY comes from the caller's environment, so vllm 0.33.0")
    assert "sk-test-key" not in findings[0][2]


@pytest.mark.parametrize(
    ("visible", "args", "expected"),
    [
        ("0", ["--tp-size", "2"], [("PR004", "error")]),
        ("0,1", ["--tp-size", "2"], []),
        ("0,1,2,3", ["--tp-size", "2"], [("PR005", "info")]),
        ("0,1", ["--tp-size", "2", "--dp-size", "2"], [("PR004", "error")]),
        ("0,1", ["--tp-size", "2", "--dp-size", "2", "--enable-dp-attention"], []),
        ("", [], [("PR006", "error")]),
        ("0,0", [], [("PR006", "error")]),
        ("1,-1,2", ["--tp-size", "2"], [("PR006", "error"), ("PR004", "error")]),
    ],
)
def test_visible_devices_against_parallel_sizes(visible: str, args: list[str], expected: list) -> None:
    _, findings = run(server(["--model-path", "/m", *args], env={"CUDA_VISIBLE_DEVICES": visible}))
    assert [(c, s) for c, s, _ in findings] == expected


def test_too_few_gpus_message() -> None:
    _, findings = run(server(["--model-path", "/m", "--tp-size", "2"], env={"CUDA_VISIBLE_DEVICES": "0"}))
    assert findings[0][2] == (
        "the server needs 2 GPU(s) "
        "(tensor_parallel_size 2 x pipeline_parallel_size 1 x data_parallel_size 1) "
        "but CUDA_VISIBLE_DEVICES=0 makes only 1 visible"
    )


def test_version_order() -> None:
    order = ["0.5.9", "0.5.10rc1", "0.5.10", "0.5.10.post1", "0.5.15.post1", "0.5.23", "0.11.0", "0.33.0"]
    assert sorted(reversed(order), key=version_key) == order
    assert compare_versions("0.5.10.post1", "0.5.10") == 1
    assert compare_versions("1.0", "1.0.0") == 0


def test_choose_schema_requested_unbundled_and_newest() -> None:
    need("sglang", SG10)
    srv = server(["--model-path", "/m"])
    schema, source, findings = choose_schema("sglang", SG10, server=srv)
    assert (schema.version, source, findings) == (SG10, "bundled-schema", [])
    # a version with no bundled schema (0.5.11 is bundled since issue 15): the nearest older one is used
    schema, source, findings = choose_schema("sglang", "0.5.10.post2", server=srv)
    assert schema.version == nearest_older("sglang", "0.5.10.post2") == SG10
    assert [f.code for f in findings] == ["PR008"]
    newest = bundled_versions("sglang")[-1]
    srv_missing = server(["--model-path", "/m"], env={"PATH": "/nonexistent"})
    schema, source, findings = choose_schema("sglang", None, server=srv_missing)
    assert (schema.version, source) == (newest, "bundled-schema")


def test_choose_schema_reads_the_installed_version_from_a_venv(tmp_path: Path) -> None:
    need("sglang", SG10)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python3"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    (site / "sglang-0.5.10.post1.dist-info").mkdir(parents=True)
    srv = server(["--model-path", "/m"], env={"PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin"})
    assert installed.server_interpreter(srv) == str(python)
    schema, source, findings = choose_schema("sglang", None, server=srv)
    assert (schema.version, source, findings) == (SG10, "installed", [])
    # --python wins over the server's interpreter word
    found = installed.installed_framework_version("sglang", server=srv, python=str(python))
    assert (found.version, found.how) == (SG10, "dist-info")


def test_console_script_interpreter_from_its_shebang(tmp_path: Path) -> None:
    need("vllm", "0.33.0")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python"
    python.write_bytes(b"\x7fELF fake")
    python.chmod(0o755)
    script = venv / "bin" / "vllm"
    script.write_text(f"#!{python}\nimport sys\n")
    script.chmod(0o755)
    (venv / "lib" / "python3.11" / "site-packages" / "vllm-0.33.0.dist-info").mkdir(parents=True)
    srv = server(["/m"], entrypoint="vllm serve", env={"PATH": str(venv / "bin")})
    assert installed.server_interpreter(srv) == str(python)
    schema, source, findings = choose_schema("vllm", None, server=srv)
    assert (schema.version, source, findings) == ("0.33.0", "installed", [])


def test_framework_variable_value_of_the_wrong_type() -> None:
    need("vllm", "0.33.0")
    srv = server(["/m"], entrypoint="vllm serve", env={"VLLM_PORT": "eight", "VLLM_LOGGING_LEVEL": "DEBUG"})
    _, findings = run(srv, "0.33.0")
    assert findings == [
        (
            "PR009",
            "warning",
            "VLLM_PORT=eight: vllm 0.33.0 reads it as an integer (int(...) fails on this value)",
        )
    ]


@pytest.mark.parametrize(
    ("command", "severity", "fix"),
    [
        # the nearest variable SGLang reads is SGLANG_JIT_LOG_LEVEL, another setting: the flag is meant
        (
            "SGLANG_LOG_LEVEL=debug python3 -m sglang.launch_server --model-path m",
            "warning",
            "remove SGLANG_LOG_LEVEL and pass --log-level debug",
        ),
        (
            "VLLM_MAX_MODEL_LEN=4096 vllm serve m",
            "info",
            "remove VLLM_MAX_MODEL_LEN and pass --max-model-len 4096",
        ),
        # the launch already passes the flag
        (
            "VLLM_MAX_MODEL_LEN=4096 vllm serve m --max-model-len 8192",
            "info",
            "remove VLLM_MAX_MODEL_LEN: the launch already passes --max-model-len",
        ),
    ],
)
def test_a_variable_named_as_a_flag_points_at_the_flag(command: str, severity: str, fix: str) -> None:
    from tests.conftest import run_cli

    result = run_cli(["check", "--no-cache", "--format", "json", "--no-resolve", "-c", command])
    (pr001,) = [f for f in result.json["findings"] if f["code"] == "PR001"]
    assert (pr001["severity"], pr001["fix"]) == (severity, fix)
    assert "takes the setting as the flag of the same name" in pr001["message"]
