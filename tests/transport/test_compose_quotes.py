"""TP019: a compose list-form ``environment:`` item keeps the quotes of its value (compose-go
``types/mapping.go`` ``MappingWithEquals.DecodeMapstructure`` cuts the item at the first ``=`` and unquotes
nothing; the compose spec removes quotes only in ``env_file:`` files). Real case: LMCache/LMCache#906
(tests/test_real_cases.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

HEAD = (
    "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    command: [Qwen/Qwen3-8B]\n    environment:\n"
)


def check(tmp_path: Path, environment: str) -> Any:
    (tmp_path / "compose.yaml").write_text(HEAD + environment)
    result = run_cli(["check", "--format", "json", "--no-resolve", "compose.yaml"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    return result.json


def tp019(report: Any) -> list[tuple[str, str, str, str | None]]:
    return [
        (f["severity"], f["at"], f["message"], f.get("fix"))
        for f in report["findings"]
        if f["code"] == "TP019"
    ]


def test_a_quoted_list_item_keeps_its_quotes_and_the_fix_removes_them(tmp_path: Path) -> None:
    report = check(
        tmp_path, '      - CUDA_VISIBLE_DEVICES=0\n      - LMCACHE_CONFIG_FILE="/cfg/lmcache.yaml"\n'
    )
    assert tp019(report) == [
        (
            "warning",
            "compose.yaml:7",
            "LMCACHE_CONFIG_FILE in `environment:` is quoted: compose passes a list item's value as written, "
            "so the server gets the quote characters as part of LMCACHE_CONFIG_FILE, not '/cfg/lmcache.yaml'",
            "Write LMCACHE_CONFIG_FILE=/cfg/lmcache.yaml without quotes at compose.yaml:7:29: compose "
            "passes a list item's value as written, quotes included.",
        )
    ]
    found = next(f for f in report["findings"] if f["code"] == "TP019")
    assert found["fix_verified"] is True
    assert found["fix_edits"] == [
        {"file": "compose.yaml", "start": "7:29", "end": "7:48", "replacement": "/cfg/lmcache.yaml"}
    ]


@pytest.mark.parametrize(
    "environment",
    [
        '      - "LMCACHE_CONFIG_FILE=/cfg/lmcache.yaml"\n',  # YAML's quotes around the item: removed by YAML
        '      LMCACHE_CONFIG_FILE: "/cfg/lmcache.yaml"\n',  # the map form: YAML removes them too
        "      - LMCACHE_CONFIG_FILE=/cfg/lmcache.yaml\n",
        '      - GREETING="hello" world\n',  # not quoted from end to end
    ],
)
def test_no_finding_where_compose_gets_no_quotes(tmp_path: Path, environment: str) -> None:
    assert tp019(check(tmp_path, environment)) == []


def test_a_secret_s_value_is_not_shown(tmp_path: Path) -> None:
    token = "hf_" + "Q7" * 15
    report = check(tmp_path, f"      - HF_TOKEN='{token}'\n")
    [(severity, _at, message, _fix)] = tp019(report)
    assert severity == "warning"
    assert message.endswith("as part of HF_TOKEN, not the value")
    assert token not in str(report)
