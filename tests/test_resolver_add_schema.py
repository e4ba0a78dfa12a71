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
    assert report["framework"] == {
        "name": "sglang",
        "version": version,
        "source": "bundled-schema",
        "evidence": "named with --framework-version",
    }
    assert load_schema("sglang", version).path == str(scratch_cache / "schemas" / f"sglang-{version}.json")


@pytest.fixture
def unbundled(scratch_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled schema directory without SGLang 0.5.10.post1's file: the release is then one that is not
    bundled, whose environment exists (CI's), as after `resolver add` of any other release."""
    from argtrace.frameworks import schema as schema_module

    shown = tmp_path / "bundled"
    shown.mkdir()
    for path in schema_module.SCHEMA_DIR.iterdir():
        if path.name != f"sglang-{VERSION}.json":
            (shown / path.name).symlink_to(path)
    monkeypatch.setattr(schema_module, "SCHEMA_DIR", shown)
    load_schema.cache_clear()
    assert VERSION not in bundled_versions("sglang")
    return scratch_cache


def test_resolver_add_of_a_release_that_is_not_bundled_generates_its_schema_and_check_uses_it(
    unbundled: Path,
) -> None:
    """End to end, nothing relabelled: `resolver add` (no --regenerate-schema) runs the release's own
    parser in its environment because no bundled schema exists, and `check` then analyses with that file:
    no PR008 fallback to 0.5.9 (the nearest older bundled release), its flags accepted, a later release's
    flag rejected with the release that added it."""
    result = run_cli(["resolver", "--format", "json", "add", f"sglang=={VERSION}"])
    assert result.status == 0, result.stderr
    path = unbundled / "schemas" / f"sglang-{VERSION}.json"
    assert result.json["resolver"]["schemas"][0]["path"] == str(path)
    generated = json.loads(path.read_text())
    assert generated["version"] == VERSION and generated["generated_by"] == "scripts/gen_schemas.py"
    assert "stored" not in generated  # a full file, not the bundled shared storage
    load_schema.cache_clear()
    assert load_schema("sglang", VERSION).path == str(path)
    command = "python -m sglang.launch_server --model-path m --mamba-scheduler-strategy auto"
    report = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", VERSION, "-c", command]
    ).json
    assert report["framework"] == {
        "name": "sglang",
        "version": VERSION,
        "source": "bundled-schema",
        "evidence": "named with --framework-version",
    }
    assert [f["code"] for f in report["findings"] if f["layer"] == "parser" or f["code"] == "PR008"] == [
        "PA024"  # 0.5.20 dropped it: the same answer as with the bundled file
    ]
    command = "python -m sglang.launch_server --model-path m --mamba-radix-cache-strategy auto"
    report = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", VERSION, "-c", command]
    ).json
    assert [(f["code"], f["message"]) for f in report["findings"] if f["layer"] == "parser"] == [
        (
            "PA004",
            "--mamba-radix-cache-strategy only exists from sglang 0.5.14 on; sglang 0.5.10.post1 rejects it "
            'with "unrecognized arguments" (exit 2); this release spells it --mamba-scheduler-strategy',
        )
    ]
