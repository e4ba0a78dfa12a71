"""The raise-site indexes stored shared once (resolver/raise_store.py) and the message index read from an
unpacked wheel (message_index.index_unpacked): both give back exactly what the full forms give."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argtrace.resolver import message_index, raise_store
from argtrace.resolver.raise_index import RAISE_DIR, bundled, load_index


def site(line: int, message: str, **extra: Any) -> dict[str, Any]:
    return {
        "file": "vllm/engine/arg_utils.py",
        "line": line,
        "function": "EngineArgs.create_engine_config",
        "class": None,
        "exception": "ValueError",
        "message": message,
        **extra,
    }


def index(version: str, sites: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": 1,
        "framework": "vllm",
        "version": version,
        "modules": ["vllm/engine/arg_utils.py"],
        "sites": sites,
    }


def test_pack_stores_a_moved_site_once_and_expands_back(tmp_path: Path) -> None:
    a = index("0.1.0", [site(10, "max_model_len {x} is too large"), site(20, "only in 0.1.0")])
    b = index("0.2.0", [site(14, "max_model_len {x} is too large"), site(30, "only in 0.2.0", fields=["x"])])
    for data in (a, b):
        (tmp_path / f"vllm-{data['version']}.json").write_text(json.dumps(data))
    size = raise_store.pack(tmp_path, "vllm")
    assert size == sum(p.stat().st_size for p in tmp_path.iterdir())
    shared = json.loads((tmp_path / "vllm-shared.json").read_text())
    assert shared == {"format": 1, "sites": [{k: v for k, v in a["sites"][0].items() if k != "line"}]}
    stored = json.loads((tmp_path / "vllm-0.2.0.json").read_text())
    assert stored["stored"] == "shared"
    assert stored["sites"] == [[0, 14], b["sites"][1]]
    for data in (a, b):
        back = raise_store.expand(
            json.loads((tmp_path / f"vllm-{data['version']}.json").read_text()), tmp_path
        )
        assert back == data and list(back["sites"][0]) == list(data["sites"][0])  # key order too


def test_a_full_file_is_read_as_it_is(tmp_path: Path) -> None:
    data = index("0.1.0", [site(10, "x")])
    assert raise_store.expand(data, tmp_path) is data


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
