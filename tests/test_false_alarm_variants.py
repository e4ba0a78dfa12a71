"""Broken variants of the false-alarm gate's former false alarms: the fix must not silence the real thing.

Each test takes a gate case (tests/data/false_alarms/), breaks it the way a user could, and checks the
finding that the correct original no longer raises still fires on the broken copy, with its severity and
message. Run with no options, like the gate, on a first-run machine (no resolver, no Hugging Face cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

CORPUS = Path(__file__).resolve().parent / "data" / "false_alarms"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(argv: list[str], cwd: Path) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def variant(tmp_path: Path, case: str, old: str, new: str) -> Path:
    text = (CORPUS / case).read_text()
    assert old in text, f"{case} no longer holds {old!r}"
    path = tmp_path / Path(case).name
    path.write_text(text.replace(old, new, 1))
    return path


def found(report: dict[str, Any], code: str) -> list[tuple[str, str]]:
    return [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == code]


# ---------------------------------------------------------------------------------------------------- PR001


def test_the_embedding_scripts_own_variable_is_a_note(tmp_path: Path) -> None:
    report = check([str(CORPUS / "scripts/vllm_embedding_long_text_service.sh")], CORPUS / "scripts")
    assert found(report, "PR001") == [
        (
            "info",
            "VLLM_ENABLE_CHUNKED_PROCESSING looks like a vllm variable but vllm 0.11.2 never reads it; the "
            "script expands it itself, so it is the script's own setting",
        )
    ]


def test_a_misspelt_vllm_variable_in_the_embedding_script_still_warns(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        "scripts/vllm_embedding_long_text_service.sh",
        "export VLLM_WORKER_MULTIPROC_METHOD=spawn",
        "export VLLM_WORKER_MULTIPROC_METHD=spawn",
    )
    report = check([str(path)], tmp_path)
    assert found(report, "PR001") == [
        (
            "info",
            "VLLM_ENABLE_CHUNKED_PROCESSING looks like a vllm variable but vllm 0.11.2 never reads it; the "
            "script expands it itself, so it is the script's own setting",
        ),
        (
            "warning",
            "VLLM_WORKER_MULTIPROC_METHD looks like a vllm variable but vllm 0.11.2 never reads it; the "
            "nearest name it reads is VLLM_WORKER_MULTIPROC_METHOD",
        ),
    ]


def test_an_unknown_vllm_variable_is_only_logged_by_vllm_033(tmp_path: Path) -> None:
    report = check(
        ["--framework-version", "0.33.0", "-c", "VLLM_MY_TEAM_FLAG=1 vllm serve Qwen/Qwen3-8B"], tmp_path
    )
    assert found(report, "PR001") == [
        (
            "info",
            "VLLM_MY_TEAM_FLAG looks like a vllm variable but vllm 0.33.0 never reads it; vllm 0.33.0 logs "
            "`Unknown vLLM environment variable detected: VLLM_MY_TEAM_FLAG` at start-up and goes on",
        )
    ]


def test_fail_on_environ_validation_makes_an_unknown_vllm_variable_fatal(tmp_path: Path) -> None:
    command = "VLLM_MY_TEAM_FLAG=1 vllm serve Qwen/Qwen3-8B --fail-on-environ-validation"
    report = check(["-c", command], tmp_path)
    assert report["framework"]["analysed_with"] == "0.33.0"
    assert found(report, "PR001") == [
        (
            "error",
            "VLLM_MY_TEAM_FLAG looks like a vllm variable but vllm 0.33.0 never reads it; vllm 0.33.0 logs "
            "`Unknown vLLM environment variable detected: VLLM_MY_TEAM_FLAG` at start-up and goes on; with "
            "--fail-on-environ-validation vllm 0.33.0 refuses to start (ValueError: Unknown vLLM environment "
            "variable detected: VLLM_MY_TEAM_FLAG)",
        )
    ]
    # the flag's negative form, given last, turns the check back into a log line
    report = check(["-c", command + " --no-fail-on-environ-validation"], tmp_path)
    assert [s for s, _ in found(report, "PR001")] == ["info"]


# ---------------------------------------------------------------------------------------------------- PR003


def test_the_host_ip_in_the_kv_transfer_config_is_a_note(tmp_path: Path) -> None:
    report = check([str(CORPUS / "scripts/vllm_disaggregated_prefill.sh")], CORPUS / "scripts")
    assert found(report, "PR003") == [
        (
            "info",
            "VLLM_HOST_IP is exported by the script, so vllm 0.33.0 takes it as this node's address, and the "
            "script also puts it in proxy_ip, http_ip of --kv-transfer-config: the same address in both, "
            "as both mean this node",
        )
    ]


def test_vllm_port_reused_as_the_api_port_in_the_disaggregated_script_still_warns(tmp_path: Path) -> None:
    # the broken variant: VLLM_PORT is vLLM's internal port, so the API server and vLLM's own sockets
    # would want the same port
    path = variant(
        tmp_path,
        "scripts/vllm_disaggregated_prefill.sh",
        "    --port 8100 \\",
        "    --port $VLLM_PORT \\",
    )
    text = path.read_text().replace("MODEL_NAME=", "export VLLM_PORT=8100\nMODEL_NAME=", 1)
    path.write_text(text)
    report = check([str(path)], tmp_path)
    assert [(s, m) for s, m in found(report, "PR003") if s == "warning"] == [
        (
            "warning",
            "VLLM_PORT is exported by the script, so vllm 0.33.0 reads it for its own purpose, and the "
            "script also expands it into --port (8100): one value silently feeds two settings",
        )
    ]


def test_the_host_ip_in_a_port_field_still_warns(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        "scripts/vllm_disaggregated_prefill.sh",
        '"proxy_port":"30001"',
        '"proxy_port":"\'"$VLLM_HOST_IP"\'"',
    )
    report = check([str(path)], tmp_path)
    # the same address in a port field is a clash (check analyses the first server, the one edited here)
    assert [(s, m.split(" (")[0]) for s, m in found(report, "PR003")] == [
        (
            "warning",
            "VLLM_HOST_IP is exported by the script, so vllm 0.33.0 reads it for its own purpose, and the "
            "script also expands it into --kv-transfer-config",
        )
    ]


# ---------------------------------------------------------------------------------------------------- PR008


def test_a_release_read_from_a_pip_line_without_a_bundled_schema_is_a_note(tmp_path: Path) -> None:
    # The OpenAI cookbook installs vllm==0.10.1+gptoss: the release is known, its schema is not bundled,
    # so the analysis substitutes the bundled release of its family, 0.10.2 (it was the nearest older,
    # 0.9.2, and before issue 15 the oldest, 0.11.0), and says so without a warning.
    report = check([str(CORPUS / "scripts/openai_cookbook_gpt_oss_vllm.sh")], CORPUS / "scripts")
    assert (report["framework"]["version"], report["framework"]["source"]) == ("0.10.1+gptoss", "pip-line")
    assert found(report, "PR008") == [
        (
            "info",
            "vllm 0.10.1+gptoss (`vllm==0.10.1+gptoss` installed) has no bundled parser schema; analysing "
            "with 0.10.2, the bundled release of its family (0.10.x). Flags added or removed between 0.10.2 "
            "and 0.10.1+gptoss may be misjudged.",
        )
    ]


def test_a_parser_verdict_on_the_substitute_schema_rests_on_it(tmp_path: Path) -> None:
    # --attention-backend is a later flag; 0.10.2's schema stands in for the installed 0.10.1, so the
    # "rejected" verdict rests on that substitution: a warning with basis assumed, not an error
    path = tmp_path / "launch.sh"
    path.write_text("pip install vllm==0.10.1\nvllm serve Qwen/Qwen3-8B --attention-backend FLASH_ATTN\n")
    report = check([str(path)], tmp_path)
    assert [(f["code"], f["severity"], f["basis"]) for f in report["findings"] if f["layer"] == "parser"] == [
        ("PA004", "warning", "assumed")
    ]


def test_a_named_release_read_with_its_familys_schema_is_a_note(tmp_path: Path) -> None:
    # 0.10.2, the family's last patch, speaks for 0.10.1 (its verdicts stay warnings at most): the stand-in
    # is about argtrace's reach, not the launch (a correct launch naming 0.10.1.1 was warned, vllm26 batch)
    report = check(["--framework-version", "0.10.1", "-c", "vllm serve Qwen/Qwen3-8B"], tmp_path)
    assert [s for s, _ in found(report, "PR008")] == ["info"]


def test_a_named_release_read_with_another_familys_schema_is_a_note(tmp_path: Path) -> None:
    # 0.5.4 has no family here: 0.6.6.post1, the oldest bundled vLLM, stands in. That is argtrace's reach, not
    # the launch's fault: a note (it was a warning, the only one on mixed38's correct 0.5.4 launch).
    report = check(["--framework-version", "0.5.4", "-c", "vllm serve Qwen/Qwen3-8B"], tmp_path)
    assert found(report, "PR008") == [
        (
            "info",
            "vllm 0.5.4 (requested) has no bundled parser schema; analysing with the oldest bundled one, "
            "0.6.6.post1. Flags added or removed between 0.6.6.post1 and 0.5.4 may be misjudged.",
        )
    ]


# ---------------------------------------------------------------------------------------------------- PA005
# The recipe sweep (tests/data/false_alarms/recipes/, docs/false_alarms.md): a deprecated flag the release
# still takes was a warning on correct recipes (Kimi-K2's --disable-log-requests on vllm 0.11.0, the
# DeepSeek-V3.2 page's --enable-nsa-prefill-context-parallel on sglang 0.5.19). It is a note now; the same
# flag on a release whose parser refuses it stays an error.

KIMI_K2 = "recipes/vllm_kimi_k2_tp8_pp2_dcp.cmd"


def recipe_command(case: str) -> str:
    return "\n".join(line for line in (CORPUS / case).read_text().splitlines() if not line.startswith("#"))


def test_a_deprecated_flag_the_release_still_takes_is_a_note(tmp_path: Path) -> None:
    report = check(["--framework-version", "0.11.0", "-c", recipe_command(KIMI_K2)], tmp_path)
    assert found(report, "PA005") == [
        (
            "info",
            "--disable-log-requests is deprecated in vllm 0.11.0: [DEPRECATED] Disable logging requests.",
        )
    ]


def test_the_same_flag_on_a_release_that_refuses_it_is_still_an_error(tmp_path: Path) -> None:
    report = check(["--framework-version", "0.17.1", "-c", recipe_command(KIMI_K2)], tmp_path)
    assert found(report, "PA003") == [
        (
            "error",
            "--disable-log-requests was accepted up to vllm 0.16.0 and again from vllm 0.33.0 on, but vllm "
            '0.17.1 does not know it: the server refuses to start ("unrecognized arguments", exit 2); in '
            "vllm 0.17.1 the setting is --no-enable-log-requests",
        )
    ]
    assert found(report, "PA005") == []


def test_an_sglang_alias_the_release_still_takes_is_a_note(tmp_path: Path) -> None:
    case = "recipes/sglang_dsv32_exp_nsa_context_parallel.cmd"
    report = check(["--framework-version", "0.5.19", "-c", recipe_command(case)], tmp_path)
    assert found(report, "PA005") == [
        (
            "info",
            "--enable-nsa-prefill-context-parallel is deprecated in sglang 0.5.19: "
            "'--enable-nsa-prefill-context-parallel' is deprecated and will be removed in a future release. "
            "Use '--enable-prefill-cp' instead.",
        )
    ]
    # sglang 0.5.23's own parser has no such flag (checked in its resolver environment): an error there
    report = check(["--framework-version", "0.5.23", "-c", recipe_command(case)], tmp_path)
    assert [s for s, _ in found(report, "PA003")] == ["error"]
