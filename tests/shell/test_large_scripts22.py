"""The twenty-second session's shortcuts for big scripts (issue 18), each compared with the path it skips.

The flag-line scan of the text hazards (a literal-led search instead of ``(?m)^`` tried at every byte), the
secret-name prefilter (the words the name tests need), a command's words as real strings without a
conversion per word, the server environment's records made without the frozen dataclasses' ``__init__``,
and the transport layer passing over commands no carrier branch would take.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from argtrace import secret_detection as R
from argtrace.layers import transport as T
from argtrace.layers.shell import analysis, hazards
from argtrace.layers.shell.core import PredictedCommand, to_str
from argtrace.layers.shell.result import ShellResult
from argtrace.model import EnvValue, Origin
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]
FLAG_LINE = re.compile(rb"(?m)^[ \t]*(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)")


def test_flag_lines_are_those_the_multiline_pattern_finds() -> None:
    rng = random.Random(22)
    alphabet = b" \t\n\r-aZ09_.x#\\"
    texts = [b"", b"-x", b"\n--port 1", b"a\n  -v\n\t--tp 2\n-", b"--a\n--b\n"]
    texts += [bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for text in texts:
        want = [(m.start(1), m.group(1)) for m in FLAG_LINE.finditer(text)]
        got = [(m.start(1), m.group(1)) for m in hazards._flag_line_starts(text)]
        assert got == want, text


NAME_WORDS = [
    *("KEY", "TOKEN", "PASS", "PAT", "PWD", "SECRET", "SECRETS", "AUTH", "AUTHORIZATION", "COOKIE"),
    *("CREDENTIAL", "CREDENTIALS", "PASSWORD", "PASSWD", "ACCESS", "ID", "HF", "MODEL", "DIR", "PATH"),
    *("FILE", "PER", "MAX", "TOKENS", "LEN", "Bypass", "api", "key", "token", "hf_token", "password", "x1"),
]


def test_secret_names_are_those_the_full_tests_find(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(18)
    names = ["MODEL_DIR_7", "AWS_ACCESS_KEY_ID", "GH_PAT", "SSH_AUTH_SOCK", "--api-key", "apiKey", ""]
    for _ in range(20_000):
        name = "".join(
            rng.choice(NAME_WORDS) + rng.choice(["_", "", "-", ".", " "]) for _ in range(rng.randint(1, 4))
        )
        names.append("--" + name.lower() if rng.random() < 0.3 else name)
    R.is_secret_name.cache_clear()
    fast = [R.is_secret_name(n) for n in names]
    R.is_secret_name.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(R, "_may_name_secret", lambda upper: True)
        full = [R.is_secret_name(n) for n in names]
    R.is_secret_name.cache_clear()
    assert fast == full
    assert 1000 < sum(fast) < len(names) - 1000  # both answers are common among these names


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "A=1"],
        ["python3", None, "--port", "1"],
        ["echo", "caf\xc3\xa9"],  # latin-1 internal text of UTF-8 bytes
        ["echo", "a\x01b"],  # a placeholder (a carriage return)
        ["echo", "x\x02", "\x03"],
        [],
    ],
)
def test_a_commands_texts_are_its_words_as_real_strings(argv: list[str | None]) -> None:
    command = PredictedCommand("f:1:1", argv, None)
    assert command.texts == [to_str(w) if w is not None else None for w in argv]
    assert command.texts is command.texts  # made once


def test_environment_records_equal_what_the_dataclasses_build() -> None:
    for at, expansion, known, reason in [("f:1:2", "$A", True, None), (None, None, False, "unknown")]:
        fast = analysis._origin(at, expansion, known, reason)
        slow = Origin(at=at, expansion=expansion, known=known, reason=reason)
        assert (fast, hash(fast), repr(fast)) == (slow, hash(slow), repr(slow))
        assert EnvValue("v", fast) == EnvValue("v", slow)
        assert repr(analysis._env_value("v", fast)) == repr(EnvValue("v", slow))


class _Everything:
    def __contains__(self, item: object) -> bool:
        return True


def _transport(shell: ShellResult, data: bytes) -> object:
    from argtrace.layers.shell import ScriptSource

    result = T.analyze_transport(ScriptSource("launch.sh", data, None), shell, args=["0", "30000"], env={})
    return (
        [(s.at, [w.text for w in s.argv], sorted(s.env.items())) for s in result.servers],
        [(f.code, f.at, f.message) for f in result.findings],
        result.hops,
        result.commands,
    )


def test_the_transport_layer_follows_what_it_followed_without_the_pass_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    carried = [
        p for p in files if re.search(rb"\b(?:docker|podman|ssh|sudo|tmux|bash|nohup)\b", p.read_bytes())
    ]
    assert len(carried) > 20
    for path in carried[:60]:
        data = path.read_bytes()
        shell = run(tmp_path, data, "0", "30000")
        fast = _transport(shell, data)
        with monkeypatch.context() as m:
            m.setattr(T, "_DISPATCHED", _Everything())
            slow = _transport(shell, data)
        assert fast == slow, path
