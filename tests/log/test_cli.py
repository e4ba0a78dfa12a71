"""``argtrace log`` through the real CLI: exit status, JSON contract, settings selection, redaction."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import run_cli

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
HF = "hf_abcdefghijklmnopqrstuvwxyzABCD"


def test_seed_log_json(tmp_path: Path) -> None:
    shutil.copy(LOGS / "sglang_pr25116_spec_no_buffer.log", tmp_path / "sglang_mtp.log")
    res = run_cli(
        ["log", "sglang_mtp.log", "--format", "json", "--expect", "mamba-scheduler-strategy=extra_buffer"],
        cwd=tmp_path,
    )
    assert res.status == 1, res.stderr
    data = res.json
    assert data["schema_version"] == 1 and data["command"] == "log"
    assert data["framework"] == {"name": "sglang", "version": None, "source": "log"}
    # one cause: LG001 (no configuration line) and LG002 (the value the error implies) quote LG004's raise
    assert [f["code"] for f in data["findings"]] == ["LG004"]
    every = [*data["findings"], *data["findings"][0]["consequences"]]
    assert [f["code"] for f in every] == ["LG004", "LG001", "LG002"]
    assert {f["launch"] for f in data["findings"]} == {1}
    assert all(f["layer"] == "log" for f in every)
    setting = data["settings"][0]
    assert setting["name"] == "mamba_scheduler_strategy" and setting["intended"] == "extra_buffer"
    assert setting["history"][0]["known"] is False
    assert data["log"]["launches"][0]["stage"] == "validation"
    assert data["timeline"] == []


def test_ready_log_exits_zero_and_lists_requested_settings(tmp_path: Path) -> None:
    res = run_cli(
        ["log", str(LOGS / "vllm_0.20_qwen36_mtp.log"), "--format", "json", "--setting", "max-model"]
    )
    assert res.status == 0, res.stderr
    names = [s["name"] for s in res.json["settings"]]
    assert names == ["model", "max_model_len"]  # "model" carries the LG006 finding
    assert res.json["settings"][1]["effective"] == 32768
    assert [e["event"] for e in res.json["timeline"]] == [
        "args_logged",
        "model_config",
        "weights_loaded",
        "kv_cache_allocated",
        "memory_pool_end",
        "server_ready",
    ]


def test_setting_not_logged_note(tmp_path: Path) -> None:
    res = run_cli(
        ["log", str(LOGS / "sglang_issue4116_unrecognized.log"), "--format", "json", "--setting", "mamba"]
    )
    assert res.status == 1
    assert res.json["notes"] == [
        "no setting containing 'mamba' in launch 1 of "
        + str(LOGS / "sglang_issue4116_unrecognized.log")
        + " (it never logged its configuration)"
    ]


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run_cli(["log", str(tmp_path / "missing.log")]).status == 2
    assert run_cli(["log", str(tmp_path)]).status == 2
    log = LOGS / "vllm_0.20_qwen36_mtp.log"
    assert run_cli(["log", str(log), "--launch", "7"]).status == 2
    assert run_cli(["log", str(log), "--launched-after", "yesterday"]).status == 2
    assert run_cli(["log", str(log), "--expect", "no-equals-sign"]).status == 2


def test_text_output_renders(tmp_path: Path) -> None:
    res = run_cli(["log", str(LOGS / "sglang_0.5.2x_dsv41_dict.log")])
    assert res.status == 0, res.stderr
    assert "draft_worker_ready" in res.stdout
    assert "sglang-dict" in res.stdout or "LG010" in res.stdout


def test_secrets_are_masked(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        f"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', api_key='{SECRET}', tp_size=1)\n"
        f"[2026-11-29 21:14:03] Downloading with token {HF} from https://user:hunter2pass@example.com/x\n"
        f"[2026-11-29 21:14:04] ValueError: bad key {SECRET}\n"
    )
    res = run_cli(["log", "server.log", "--format", "json", "--all-settings"], cwd=tmp_path)
    assert res.status == 1, res.stderr
    assert SECRET not in res.stdout and HF not in res.stdout and "hunter2pass" not in res.stdout
    data = res.json
    assert data["log"]["args"]["api_key"].startswith("<redacted:")
    assert any("<redacted:" in f["message"] for f in data["findings"])
    text = run_cli(["log", "server.log"], cwd=tmp_path)
    assert SECRET not in text.stdout


def test_gzip_through_cli(tmp_path: Path) -> None:
    import gzip

    gz = tmp_path / "v.log.gz"
    gz.write_bytes(gzip.compress((LOGS / "vllm_0.20_qwen36_mtp.log").read_bytes()))
    res = run_cli(["log", str(gz), "--format", "json"])
    assert res.status == 0
    assert json.loads(res.stdout)["log"]["gzip"] is True
