"""``split_like_shlex`` equals the real ``shlex.split`` (POSIX mode) and stays linear on long words."""

from __future__ import annotations

import random
import shlex
import signal

import pytest

from argtrace.layers.transport.words import split_like_shlex

ALPHABET = ["a", "b", " ", "\t", "'", '"', "\\", "\n", "x=1", "$", "é", "--port"]


def _outcome(split: object, text: str) -> tuple[object, str | None]:
    try:
        return split(text), None  # type: ignore[operator]
    except ValueError as exc:
        return None, str(exc)


def test_equal_to_shlex_split_on_random_words() -> None:
    rng = random.Random(20261201)
    for _ in range(5000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 14)))
        assert _outcome(split_like_shlex, text) == _outcome(shlex.split, text), repr(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "python3 -m sglang.launch_server --model-path '/m x' --port 30000",
            ["python3", "-m", "sglang.launch_server", "--model-path", "/m x", "--port", "30000"],
        ),
        ('--json-model-override-args "{\\"a\\": 1}"', ["--json-model-override-args", '{"a": 1}']),
        ("a\\ b 'c\\d' \"e\\f\"", ["a b", "c\\d", "e\\f"]),
    ],
)
def test_known_forms(text: str, words: list[str]) -> None:
    assert split_like_shlex(text) == shlex.split(text) == words


def test_a_5_mb_word_is_linear() -> None:
    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("split_like_shlex is not linear")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(60)
    try:
        assert split_like_shlex("python3 " + "a" * 5_000_000) == ["python3", "a" * 5_000_000]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
