"""The vLLM raise-site indexes stored shared once (frameworks/schema_store.py, as the schemas; its round trip
is tested in test_release_schemas.py) and the message index read from an unpacked wheel
(message_index.index_unpacked): both give back exactly what the full forms give."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argtrace.resolver import message_index
from argtrace.resolver.raise_index import RAISE_DIR, bundled, load_index


def test_every_bundled_vllm_raise_index_loads_and_the_shared_part_is_no_release() -> None:
    versions = [v for fw, v in bundled() if fw == "vllm"]
    assert "shared" not in versions and "0.33.0" in versions
    for version in versions:
        full = load_index("vllm", version)
        assert full is not None and full["version"] == version and "stored" not in full
        assert full["sites"] and all(
            isinstance(s, dict) and isinstance(s["line"], int) for s in full["sites"]
        )
    assert (RAISE_DIR / "vllm-shared.json").is_file()


@pytest.fixture()
def tiny_release(tmp_path: Path) -> tuple[Path, Path]:
    """The same three files as a wheel and as an unpacked directory (with a test file both skip)."""
    files = {
        "vllm/__init__.py": "",
        "vllm/b.py": 'def f(x):\n    if x > 2:\n        raise ValueError(f"x={x} must be at most 2")\n',
        "vllm/a/c.py": "import logging\nlog = logging.getLogger()\nlog.warning('cache is cold: %s', 1)\n",
        "vllm/tests/t.py": 'raise RuntimeError("a test message that is never indexed")\n',
    }
    wheel = tmp_path / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    root = tmp_path / "unpacked"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return wheel, root


def test_an_unpacked_wheel_gives_the_wheels_sites(tiny_release: tuple[Path, Path]) -> None:
    wheel, root = tiny_release
    from_dir = message_index.index_unpacked(root, "vllm")
    assert from_dir == message_index.index_wheel(str(wheel), "vllm")
    assert [(s["f"], s["x"]) for s in from_dir] == [("vllm/a/c.py", "warning"), ("vllm/b.py", "ValueError")]


def _gen_messages() -> Any:
    import importlib.util
    import sys

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gen_messages", root / "scripts" / "gen_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_messages"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_two_message_stores_written_apart_merge_into_the_one_store() -> None:
    """gen_messages --merge: the bundled vLLM store split by release and merged back is the same store."""
    import copy

    from argtrace.resolver.message_store import MESSAGE_DIR

    gen = _gen_messages()
    whole = gen.load_store("vllm", MESSAGE_DIR)
    releases = list(whole["releases"])
    assert len(releases) >= 2
    first, rest = copy.deepcopy(whole), copy.deepcopy(whole)
    for version in releases[1:]:
        gen.drop_release(first, version)
    gen.drop_release(rest, releases[0])
    gen.merge_store(first, rest)
    assert list(first["releases"]) == releases
    # the same sites with the same lines per release; sites equal in (file, function, parts) may come in
    # another order (merge_release's sort key), which no lookup depends on
    canonical = [json.dumps(s, sort_keys=True) for s in first["sites"]]
    assert sorted(canonical) == sorted(json.dumps(s, sort_keys=True) for s in whole["sites"])
    assert len(canonical) == len(whole["sites"])
