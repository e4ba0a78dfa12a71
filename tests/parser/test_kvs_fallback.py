"""vLLM 0.8.5-0.9.x read a JSON flag's value not written as an object as ``KEY=VALUE,...`` (their
``parse_type``/``optional_type`` hand it to ``nullable_kvs``); 0.10.0 removed that (vllm#21615). The releases
come from each wheel's own ``arg_utils.py`` (scripts/gen_vllm_kvs_fallback.py); the messages are vLLM's."""

from __future__ import annotations

import argparse
import json

import pytest

from argtrace import safe_json
from argtrace.frameworks import vllm
from argtrace.package_data import package_file


def test_the_releases_with_the_fallback() -> None:
    data = json.loads(package_file("frameworks/data/vllm_kvs_fallback.json").read_text())
    with_it = {r: e["fallback"]["in"] for r, e in data["releases"].items() if e["fallback"]}
    assert with_it == {
        "0.8.5.post1": "optional_type",
        "0.9.0": "parse_type",
        "0.9.0.1": "parse_type",
        "0.9.1": "parse_type",
        "0.9.2": "parse_type",
    }
    assert data["releases"]["0.8.4"] == {"fallback": None}
    assert data["releases"]["0.10.2"] == {"fallback": None}
    assert data["releases"]["0.9.2"]["fallback"] == {
        "at": "vllm/engine/arg_utils.py:62",
        "in": "parse_type",
        "pattern": "^{.*}$",
    }


@pytest.mark.parametrize(
    ("release", "value", "taken"),
    [
        ("0.9.2", "image=10", {"image": 10}),
        ("0.9.2", "Image = 3, video=0", {"image": 3, "video": 0}),  # lowered and stripped
        ("0.9.2", '{"image": 10}', {"image": 10}),
        ("0.8.5.post1", "image=3,video=0", {"image": 3, "video": 0}),
    ],
)
def test_a_release_with_the_fallback_takes_the_key_value_form(
    release: str, value: str, taken: object
) -> None:
    assert vllm.parse_type(safe_json.loads, release)(value) == taken
    assert vllm.optional_type(safe_json.loads, release)(value) == taken


@pytest.mark.parametrize(
    ("release", "value", "message"),
    [
        ("0.9.2", "image=x", "Failed to parse value of item image=x"),
        ("0.9.2", "image", "Each item should be in the form KEY=VALUE"),
        ("0.9.2", "image=1,image=2", "Conflicting values specified for key: image"),
        # `.` does not match a newline: a JSON object over two lines goes to nullable_kvs in 0.9.x
        ("0.9.2", '{"image":\n 10}', "Each item should be in the form KEY=VALUE"),
        ("0.33.0", "image=10", "Value image=10 cannot be converted to <function loads>."),
        ("0.10.2", "image=10", "Value image=10 cannot be converted to <function loads>."),
    ],
)
def test_what_each_release_refuses(release: str, value: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        vllm.parse_type(safe_json.loads, release)(value)
    assert str(refused.value) == message
