"""The redaction mechanism itself: names, shapes, linear time on long inputs, the stream boundary, escapes."""

from __future__ import annotations

import io
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from argtrace.redact import (
    Redactor,
    argv_secrets,
    is_secret_name,
    is_secret_setting,
    mask,
    redact_argv,
    redact_text,
    scrub,
    secrets_in_text,
    split_words,
)
from argtrace.render.boundary import RedactingStream, visible, visible_data


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY", "WANDB_API_KEY", "AWS_ACCESS_KEY_ID",
        "AWS_SESSION_TOKEN", "DB_PASSWORD", "DB_PASS", "DB_PWD", "GH_PAT", "GITHUB_PAT", "SECRETS_JSON",
        "CLIENT_SECRET", "S3_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "MYTOKEN", "apiKey",
        "accessToken", "api_key", "admin_api_key", "hf_token", "ssl_keyfile_password", "watermark_key",
        "watermark_config", "Authorization", "--api-key", "--admin-api-key", "DB_PASSWORD_HASH",
    ],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "MAX_TOKENS", "SGLANG_MAX_TOKENS", "max_total_tokens", "TOKENIZERS_PARALLELISM", "KEYBOARD",
        "SSH_AUTH_SOCK", "HF_TOKEN_PATH", "DB_PASSWORD_FILE", "PATH", "PYTHONPATH", "PWD", "OLDPWD",
        "GIT_ASKPASS", "BYPASS_PROXY", "AWS_CA_BUNDLE", "speculative_token_map", "ssl_keyfile",
        "AWS_REGION", "KEY", "sort_key", "json_key", "kv_bytes_per_token",
        "SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE", "HF_HUB_DISABLE_TOKEN", "CUDA_VISIBLE_DEVICES",
    ],
)  # fmt: skip
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


def test_settings_are_secret_by_the_frameworks_lists_only() -> None:
    assert is_secret_setting("api_key", "--api-key")
    assert is_secret_setting("watermark_key_b")
    assert is_secret_setting(None, "--ssl-keyfile-password")
    assert is_secret_setting("HF_TOKEN")  # an environment setting follows the name patterns
    # These end in "token" and hold numbers.
    assert not is_secret_setting("kt_max_deferred_experts_per_token", "--kt-max-deferred-experts-per-token")
    assert not is_secret_setting("bucket_time_to_first_token")


def test_shapes_in_text() -> None:
    assert redact_text("http://bob:pa55w0rd@proxy:3128") == f"http://bob:{mask('pa55w0rd')}@proxy:3128"
    assert redact_text("Authorization: Bearer abc") == f"Authorization: Bearer {mask('abc')}"
    assert (
        redact_text('-H "authorization: Basic dXNlcjpw"') == f'-H "authorization: Basic {mask("dXNlcjpw")}"'
    )
    assert redact_text("sent Bearer tok1") == f"sent Bearer {mask('tok1')}"
    assert redact_text("a bearer token was sent") == "a bearer token was sent"
    assert redact_text("export DB_PASS=pw1 MAX_TOKENS=5") == f"export DB_PASS={mask('pw1')} MAX_TOKENS=5"
    assert redact_text("{'api_key': ['k1', 'k2'], 'port': 1}") == (
        f"{{'api_key': ['{mask('k1')}', '{mask('k2')}'], 'port': 1}}"
    )
    assert redact_text('"admin_api_key": "zz9"') == f'"admin_api_key": "{mask("zz9")}"'
    assert redact_text("--api-key k9 --port 1") == f"--api-key {mask('k9')} --port 1"
    assert redact_text("--api-key --port 1") == "--api-key --port 1"
    assert redact_text("api_key=None, KEY=VALUE") == "api_key=None, KEY=VALUE"


def test_redaction_is_idempotent() -> None:
    text = "Authorization: Bearer abc http://u:pw@h api_key='k' --api-key z DB_PASS=p hf_" + "a" * 30
    once = redact_text(text)
    assert redact_text(once) == once
    assert secrets_in_text(once) == set()


def test_a_text_masked_before_a_secret_was_learned_is_masked_again_after() -> None:
    # Redactor.text remembers what it made of each string (a report quotes one value in many places);
    # learning a secret must drop what was remembered, or the first masking would be handed out again.
    redactor = Redactor()
    text = "--served-model-name team-model-42 --port 8000"
    assert redactor.text(text) == text
    redactor.learn("team-model-42")
    assert redactor.text(text) == f"--served-model-name {mask('team-model-42')} --port 8000"


def test_one_value_quoted_in_many_places_is_masked_in_every_one() -> None:
    token = "hf_" + "Q" * 40
    value = "x" * 200_000 + f" HF_TOKEN={token} " + "y" * 200_000
    data = {"argv": ["serve", value], "message": f"model {value!r}", "evidence": [{"text": value}] * 50}
    redacted = Redactor().data(data)
    assert token not in repr(redacted)
    assert redacted["evidence"][49]["text"] == value.replace(token, mask(token))


def test_short_known_secrets_are_masked_as_whole_words_only() -> None:
    assert scrub("RS004 at s.sh:4:4 and 44", {"4"}) == f"RS004 at s.sh:{mask('4')}:{mask('4')} and 44"
    assert scrub("key abc, abcd, xabc", {"abc"}) == f"key {mask('abc')}, abcd, xabc"
    # Long ones anywhere, even inside a word.
    assert scrub("prefix-longsecret1-suffix", {"longsecret1"}) == f"prefix-{mask('longsecret1')}-suffix"


def test_list_valued_api_key_and_equals_forms() -> None:
    argv = ["vllm", "serve", "m", "--api-key", "a1", "b2", "--port", "1", "--hf-token=t3", "--x", "c"]
    assert redact_argv(argv) == [
        "vllm", "serve", "m", "--api-key", mask("a1"), mask("b2"), "--port", "1", f"--hf-token={mask('t3')}",
        "--x", "c",
    ]  # fmt: skip
    assert argv_secrets(argv) == {"a1", "b2", "t3"}
    # SGLang's other secret flags take one value.
    assert redact_argv(["--admin-api-key", "k", "model"]) == ["--admin-api-key", mask("k"), "model"]


def test_field_names_decide_at_any_depth_and_command_lines() -> None:
    payload = {
        "admin_api_key": "adm1",
        "ssl_keyfile_password": "ssl2",
        "max_total_tokens": 4096,
        "bucket_time_to_first_token": [0.1, 0.5],
        "launch_command": "--model-path /m --api-key lk3 --hf-token='hf 4' --port 1",
        "internal_states": [{"nested": {"client_secret": "cs5"}, "note": "uses adm1 and cs5"}],
        "api_key": ["k6", "k7"],
        "watermark_config": {"key": "wk8", "context_window": 4, "inner": [{"k": "wk9"}]},
    }
    redactor = Redactor()
    redactor.learn_data(payload)
    assert redactor.known == {"adm1", "ssl2", "lk3", "hf 4", "cs5", "k6", "k7", "wk8", "wk9"}
    out = redactor.data(payload)
    assert out["admin_api_key"] == mask("adm1") and out["ssl_keyfile_password"] == mask("ssl2")
    assert out["max_total_tokens"] == 4096 and out["bucket_time_to_first_token"] == [0.1, 0.5]
    assert out["launch_command"] == (
        f"--model-path /m --api-key {mask('lk3')} --hf-token={mask('hf 4')} --port 1"
    )
    assert out["internal_states"] == [
        {"nested": {"client_secret": mask("cs5")}, "note": f"uses {mask('adm1')} and {mask('cs5')}"}
    ]
    assert out["api_key"] == [mask("k6"), mask("k7")]
    assert out["watermark_config"] == {"key": mask("wk8"), "context_window": 4, "inner": [{"k": mask("wk9")}]}


def test_servers_words_lose_a_three_character_key() -> None:
    data = {
        "servers": [
            {"argv": ["python3", "--api-key", "abc"], "words": [{"text": "--api-key"}, {"text": "abc"}]}
        ]
    }
    redactor = Redactor()
    redactor.learn_data(data)
    assert redactor.data(data)["servers"][0]["words"] == [{"text": "--api-key"}, {"text": mask("abc")}]


def test_split_words_like_a_shell() -> None:
    assert split_words('--x \'a b\' "c \\" d" e\\ f') == ["--x", "a b", 'c " d', "e f"]


def test_split_words_never_fails_where_split_like_shlex_refuses() -> None:
    """Not one splitter for two jobs: the redactor must find a secret in a broken command line (an unclosed
    quote, a trailing backslash), where the transport layer's ``split_like_shlex`` raises as ``shlex``
    does; and it splits on every blank, so a secret next to a vertical tab is a word of its own."""
    from argtrace.layers.transport.words import split_like_shlex

    assert split_words("--api-key 'sk-abc") == ["--api-key", "sk-abc"]
    assert split_words("--api-key sk-abc\\") == ["--api-key", "sk-abc"]
    assert split_words("--api-key\x0bsk-abc") == ["--api-key", "sk-abc"]
    with pytest.raises(ValueError, match="No closing quotation"):
        split_like_shlex("--api-key 'sk-abc")
    with pytest.raises(ValueError, match="No escaped character"):
        split_like_shlex("--api-key sk-abc\\")
    assert split_like_shlex("--api-key\x0bsk-abc") == ["--api-key\x0bsk-abc"]


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging when a pattern goes quadratic again."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"redaction took more than {seconds} s: a pattern is not linear")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("size", [100_000, 1_000_000])
@pytest.mark.parametrize(
    "unit",
    [
        "a",
        "sk-",
        "eyJ-",
        "a+",
        "hf_",
        "a:",
        "-",
        " ",
        "'a':",
        "--api-key ",
        "Bearer ",
        "authorization: ",
        "a://b:c",
        "TOKEN=$'\\",
        "TOKEN=$'a",
        'TOKEN=$"',
    ],
)
def test_patterns_are_linear_on_long_inputs(size: int, unit: str) -> None:
    text = (unit * (size // len(unit) + 1))[:size]
    with deadline(120):  # quadratic patterns took 209 s on 100 KB; linear ones take well under a second
        out = redact_text(text)
        found = secrets_in_text(text)
    if unit in ("a", "a+", "-", " ", "a:", "hf_", "'a':"):
        assert out == text and found == set()
    else:
        assert "<redacted:" in out or out == text


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        # bash's ANSI-C quoting: a fuzz case's script line, quoted back by shellcheck's SC2034 evidence
        ("OPENAI_API_KEY=$'Zq7v6OmkSMmRZcojjoF'", "OPENAI_API_KEY=$'{}'", "Zq7v6OmkSMmRZcojjoF"),
        ('DB_PASSWORD=$"pwW3KxobPpNz5y" next', 'DB_PASSWORD=$"{}" next', "pwW3KxobPpNz5y"),
        ("HF_TOKEN=$'ab\\'cd' x", "HF_TOKEN=$'{}' x", "ab\\'cd"),  # \' does not close $'...'
        ("--api-key $'abcdefgh12'", "--api-key $'{}'", "abcdefgh12"),
    ],
)
def test_dollar_quoted_secret_values_are_masked(text: str, shown: str, value: str) -> None:
    assert redact_text(text) == shown.format(mask(value))
    assert secrets_in_text(text) == {value}


def test_dollar_quotes_of_names_that_are_not_secret_and_bare_expansions_stay_as_before() -> None:
    assert redact_text("X=$'notsecret'") == "X=$'notsecret'"
    assert redact_text("TOKEN=$") == "TOKEN=$"
    assert redact_text("HF_TOKEN=$HOME") == f"HF_TOKEN={mask('$HOME')}"


def test_long_values_through_the_whole_redactor() -> None:
    big = "a" * 1_000_000
    with deadline(120):
        redactor = Redactor(["abc", "longsecret123"])
        data = {"served_model_name": big, "launch_command": f"--api-key k --served-model-name {big}"}
        redactor.learn_data(data)
        out = redactor.data(data)
        url = redact_text("http://user:" + big)
    assert out["served_model_name"] == big
    assert out["launch_command"] == f"--api-key {mask('k')} --served-model-name {big}"
    assert url == "http://user:" + big


def test_visible_escapes_control_characters_and_keeps_newlines() -> None:
    text = "a\x1b[2Jb\x1b]0;title\x07c\rd\te\u200bf\u202eg\x7fh\x9bi\xa0j\nk"
    assert visible(text) == "a\\x1b[2Jb\\x1b]0;title\\ac\\rd\\te\\u200bf\\u202eg\\x7fh\\x9bi\\xa0j\nk"
    assert visible("plain — text “quoted”") == "plain — text “quoted”"
    assert visible_data({"k\x1b": ["\r", 1]}) == {"k\\x1b": ["\\r", 1]}


def test_stream_masks_whole_lines_and_flushes_partial_ones() -> None:
    sink = io.StringIO()
    redactor = Redactor(["secret-value-1"])
    stream = RedactingStream(sink, redactor.text)
    stream.write("error: secret-")
    assert sink.getvalue() == ""  # held until the line ends: a secret split across writes is still found
    stream.write("value-1 and token\x1b[2J\nnext ")
    assert sink.getvalue() == f"error: {mask('secret-value-1')} and token\\x1b[2J\n"
    stream.flush()
    assert sink.getvalue().endswith("\nnext ")


def test_text_output_on_a_terminal_keeps_rich_styling_and_escapes_the_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from argtrace.model import Finding, Report
    from argtrace.render import render_report

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdout", Terminal())
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    report = Report(command="log")
    report.findings = [Finding("LG011", "error", "log", "died with: x\x1b]0;title\x07\x1b[2Jy\rz")]
    out = render_report(report, fmt="text")
    assert "died with: x\\x1b]0;title\\a\\x1b[2Jy\\rz" in out
    assert "\x1b[" in out  # rich's own colours are still there
    assert "\x1b]0;" not in out and "\x07" not in out and "\r" not in out and "\x1b[2J" not in out


# Found by the seed-7 fuzz campaign on the merged code (tests/fuzz): a shape inside a value that is not
# secret, a secret flag right after a valueless flag, a CRLF script's secret shown as $'X\r'.
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("--mod HF_TOKEN=pwb6G9gULlp2Sj", "--mod HF_TOKEN=<redacted:"),
        ("--enable-custom-all-reduce --api-key=Zq74vqXJcpRjYMod1MGSmJWmE0b --x", "--api-key=<redacted:"),
        ("--enable-metrics --admin-api-key 'Zq7AWo0cxxaVmQXJxFKWPb7U9uf' --x", "--admin-api-key '<redacted:"),
    ],
)
def test_a_secret_shape_after_a_name_that_is_not_secret_is_still_found(text: str, shown: str) -> None:
    from argtrace.redact import redact_text

    out = redact_text(text)
    assert shown in out
    assert "pwb6G9gULlp2Sj" not in out and "Zq7" not in out


def test_a_crlf_secret_is_masked_without_its_carriage_return_too() -> None:
    from argtrace.redact import Redactor

    redactor = Redactor()
    redactor.learn("Zq7AWo0cxxaVmQXJxFKWPb7U9uf\r")
    shown = redactor.text("bash keeps the `\\r`; the server gets `$'Zq7AWo0cxxaVmQXJxFKWPb7U9uf\\r'`")
    assert "Zq7AWo0c" not in shown


def test_named_values_stay_linear_on_names_that_repeat() -> None:
    import signal

    from argtrace.redact import redact_text

    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("redact_text is not linear on repeated names")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(120)
    try:
        for text in ("a=" * 100_000, "HF_TOKEN=" * 50_000, "--api-key " * 50_000, "'api_key': " * 30_000):
            out = redact_text(text)
            assert out.count("<redacted:") <= text.count("=") + text.count("key") + 1
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# a flag placeholder of argtrace's own messages and the word written after it (`{flag} comes from`)
_FLAG_THEN_WORD = re.compile(
    r"\{[a-z_.]*(?:flag|opt|option|spelling|spelled|written|word)[a-z_.]*"
    r"(?:\[[^]]*\])?(?:![rs])?\}`? ([a-z]+)"
)


def test_words_argtrace_writes_after_a_flag_are_not_read_as_its_value() -> None:
    """A message such as "the value of --api-key comes from $(KEY)" puts a word after a secret flag: read as
    the flag's value, it was masked there and, once learnt, in every other string of the report (session
    28: every "comes" of a Kubernetes report). Each word the source writes after a flag placeholder must be
    known as prose."""
    from argtrace import secret_detection

    src = Path(secret_detection.__file__).parent
    words = {
        m.group(1)
        for path in src.rglob("*.py")
        for m in _FLAG_THEN_WORD.finditer(path.read_text(encoding="utf-8"))
    }
    assert "comes" in words  # the scan finds PA013's message
    assert sorted(words - secret_detection._PROSE_AFTER_FLAG) == []


def test_a_kubernetes_reference_for_a_secret_flag_leaves_the_sentence_readable() -> None:
    text = "the value of --api-key comes from $(KEY) ($(KEY) is expanded by the kubelet when the pod starts)"
    assert secrets_in_text(text) == set()
    assert redact_text("the value of --api-key sk-live-12345678 came from the script").startswith(
        "the value of --api-key <redacted:"
    )
