"""``argtrace resolver add FRAMEWORK==V`` generates the release's parser schema from its environment into
the user cache, and ``check`` analyses with it (issue 15). Uses the resolver environment of SGLang
0.5.10.post1 that CI builds (linked into a scratch cache so the real cache is untouched)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.schema import bundled_versions, load_schema
from argtrace.resolver import environments
from tests.conftest import run_cli

pytestmark = pytest.mark.frameworks

VERSION = "0.5.10.post1"


@pytest.fixture
def scratch_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    real = environments.find_environment("sglang", VERSION)
    if real is None:
        pytest.skip(f"no resolver environment for sglang {VERSION}")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / Path(real.path).name).symlink_to(real.path)
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(cache))
    load_schema.cache_clear()
    yield cache
    load_schema.cache_clear()


def normalised(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for o in options:
        o = {k: v for k, v in o.items() if k != "removed"}
        if isinstance(o.get("choices"), list):
            o["choices"] = sorted(o["choices"], key=repr)
        out.append(o)
    return out


def test_resolver_add_generates_the_schema_into_the_user_cache(scratch_cache: Path) -> None:
    result = run_cli(["resolver", "--format", "json", "add", f"sglang=={VERSION}", "--regenerate-schema"])
    assert result.status == 0, result.stderr
    path = scratch_cache / "schemas" / f"sglang-{VERSION}.json"
    generated = json.loads(path.read_text())
    bundled = dict(load_schema("sglang", VERSION).data)  # the bundled one wins over the user copy
    # the same generator on the same environment: the same parser, option for option (a choices list the
    # framework builds from a set comes in hash order, and a `removed` message quotes the usage with it)
    assert normalised(generated["options"]) == normalised(bundled["options"])
    assert generated["env_vars"] == bundled["env_vars"]
    assert generated["json_flags"] == bundled["json_flags"]
    assert generated["source"] == bundled["source"]
    report = result.json
    assert report["resolver"]["schemas"] == [
        {"framework": "sglang", "version": VERSION, "path": str(path), "options": len(bundled["options"])}
    ]


def test_check_uses_a_user_schema_of_a_release_that_is_not_bundled(scratch_cache: Path) -> None:
    """A schema in the user cache for a release with no bundled schema is analysed as that release (no
    PR008 fallback to the nearest older one). The file is the generated 0.5.10.post1 schema relabelled,
    because CI builds no environment of an unbundled release."""
    version = "0.5.10.post9"
    assert version not in bundled_versions("sglang", include_user=False)
    data = dict(load_schema("sglang", VERSION).data)
    data["version"] = version
    (scratch_cache / "schemas").mkdir()
    (scratch_cache / "schemas" / f"sglang-{version}.json").write_text(json.dumps(data))
    assert version in bundled_versions("sglang")
    command = "python -m sglang.launch_server --model-path m --mamba-scheduler-strategy auto"
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", version, "-c", command]
    )
    report = result.json
    codes = [f["code"] for f in report["findings"]]
    # without the user schema: PR008 (analysed with 0.5.10.post1, the nearest older bundled release)
    assert "PR008" not in codes, codes
    assert report["framework"] == {"name": "sglang", "version": version, "source": "bundled-schema"}
    assert load_schema("sglang", version).path == str(scratch_cache / "schemas" / f"sglang-{version}.json")
