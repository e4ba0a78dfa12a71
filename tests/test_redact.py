from __future__ import annotations

import json

from argtrace.model import Evidence, Finding, Observation, ProcessInfo, Report, Setting
from argtrace.redact import (
    is_secret_name,
    mask,
    redact_argv,
    redact_text,
    redact_value,
    scrub,
    secrets_in_text,
)
from argtrace.render import render_report

HF = "hf_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsT"


def test_mask_is_stable_and_hides_the_value() -> None:
    assert mask("s3cret-value") == mask("s3cret-value")
    assert mask("s3cret-value") != mask("s3cret-valuf")
    assert mask("s3cret-value").startswith("<redacted:") and len(mask("x")) == len("<redacted:12345678>")


def test_secret_names() -> None:
    assert is_secret_name("HF_TOKEN")
    assert is_secret_name("OPENAI_API_KEY")
    assert is_secret_name("AWS_ACCESS_KEY_ID")
    assert is_secret_name("AWS_SESSION_TOKEN")
    assert is_secret_name("DB_PASSWORD")
    assert not is_secret_name("AWS_REGION")
    assert not is_secret_name("TOKENIZERS_PARALLELISM")
    assert not is_secret_name("CUDA_VISIBLE_DEVICES")
    # Numbers of tokens are not tokens.
    assert not is_secret_name("max_total_tokens")
    assert not is_secret_name("SGLANG_MAX_TOKENS")
    assert is_secret_name("api_key")


def test_redact_value_by_name_and_inside_text() -> None:
    assert redact_value("HF_TOKEN", "abc") == mask("abc")
    assert redact_value("HF_TOKEN", "") == ""
    assert redact_value("NOTE", f"token is {HF}") == f"token is {mask(HF)}"
    assert redact_text("http://bob:pa55w0rd@proxy:3128") == f"http://bob:{mask('pa55w0rd')}@proxy:3128"


def test_redact_argv_both_forms() -> None:
    argv = ["python3", "--api-key", "k-123456", "--admin-api-key=zz-987654", "--port", "30000"]
    assert redact_argv(argv) == [
        "python3",
        "--api-key",
        mask("k-123456"),
        f"--admin-api-key={mask('zz-987654')}",
        "--port",
        "30000",
    ]


def test_report_output_never_contains_planted_secrets() -> None:
    report = Report(command="check")
    report.process = ProcessInfo(
        argv=("python3", "-m", "sglang.launch_server", "--api-key", "plain-key-1234"),
        env={"HF_TOKEN": HF, "MY_PASSWORD": "hunter22", "CUDA_VISIBLE_DEVICES": "0"},
        at="s.sh:3:1",
    )
    report.settings = [
        Setting(
            "api_key", "--api-key", "plain-key-1234", [Observation("shell", "plain-key-1234", "s.sh:3:40")]
        )
    ]
    report.findings = [
        Finding(
            "PA999",
            "error",
            "parser",
            "value plain-key-1234 and hunter22 seen",
            evidence=(Evidence("log", "x.log:3", f"token={HF}"),),
        )
    ]
    for fmt in ("json", "text"):
        out = render_report(report, fmt=fmt)
        for secret in ("plain-key-1234", HF, "hunter22"):
            assert secret not in out, (fmt, secret)
    data = json.loads(render_report(report, fmt="json"))
    assert data["process"]["env"]["CUDA_VISIBLE_DEVICES"] == "0"
    assert data["process"]["env"]["HF_TOKEN"] == mask(HF)
    assert data["settings"][0]["effective"] == mask("plain-key-1234")
    assert data["findings"][0]["message"] == f"value {mask('plain-key-1234')} and {mask('hunter22')} seen"
    shown = json.loads(render_report(report, fmt="json", show_secrets=True))
    assert shown["process"]["env"]["HF_TOKEN"] == HF


def test_short_values_and_token_counts_do_not_mangle_the_report() -> None:
    report = Report(command="check")
    report.settings = [
        Setting(
            "speculative_num_draft_tokens",
            "--speculative-num-draft-tokens",
            "4",
            [Observation("shell", "4", "s.sh:4:4")],
        ),
        Setting("api_key", "--api-key", "abc", [Observation("shell", "abc", "s.sh:5:4")]),
    ]
    report.findings = [Finding("RS004", "info", "resolution", "skipped at s.sh:4:4")]
    data = json.loads(render_report(report, fmt="json"))
    assert data["settings"][0]["effective"] == "4"
    assert data["settings"][1]["effective"] == mask("abc")
    assert data["findings"][0]["code"] == "RS004"
    assert data["findings"][0]["message"] == "skipped at s.sh:4:4"


def test_a_secret_named_value_that_is_an_expansion_masks_nothing_else() -> None:
    # `-e HF_TOKEN=${HF_TOKEN}`: a bare value stops at `{`, which left `$` as the "secret" and masked every
    # `$` of the report (`--port <redacted:...>{PORT:-30000}`)
    text = "docker run -e HF_TOKEN=${HF_TOKEN} img --port ${PORT:-30000}"
    assert secrets_in_text(text) == set()
    assert redact_text(text) == text
    assert scrub("--port ${PORT:-30000}", {"$", "-"}) == "--port ${PORT:-30000}"
    assert scrub("--api-key abc123 and abc123", {"abc123"}).count("<redacted:") == 2
