"""Schema helpers and the SGLang<->vLLM equivalents, on the bundled (generated) schemas."""

from __future__ import annotations

import pytest

from argtrace.frameworks.equivalents import equivalent_flags
from argtrace.frameworks.schema import all_schemas, bundled_versions, load_schema


def need(framework: str, version: str) -> None:
    if version not in bundled_versions(framework):
        pytest.skip(f"no bundled schema for {framework} {version}")


def test_bundled_versions_are_sorted_and_load() -> None:
    for framework in ("sglang", "vllm"):
        versions = bundled_versions(framework)
        assert versions, framework
        for schema in all_schemas(framework):
            assert schema.framework == framework
            assert schema.options and schema.option_strings


def test_option_lookups() -> None:
    need("sglang", "0.5.10.post1")
    s = load_schema("sglang", "0.5.10.post1")
    port = s.option("--port")
    assert port is not None and (port.dest, port.type, port.default_value) == ("port", "int", 30000)
    assert s.flag_for_dest("port") == "--port"
    assert s.option("--no-such-flag") is None
    assert "config_yaml" in s.argv_rewrites
    assert s.allow_abbrev is True and s.prefix_chars == "-"


def test_vllm_rewrites_and_json_flags() -> None:
    need("vllm", "0.33.0")
    s = load_schema("vllm", "0.33.0")
    assert s.parser_class == "FlexibleArgumentParser"
    assert {"underscore_to_dash", "dotted_keys", "config_yaml"} <= set(s.argv_rewrites)
    assert "compilation_config" in s.json_flags
    assert "SGLANG_ENABLE_SPEC_V2" not in s.env_var_names


def test_equivalents_map_both_ways() -> None:
    need("sglang", "0.5.23")
    need("vllm", "0.33.0")
    sg, vl = load_schema("sglang", "0.5.23"), load_schema("vllm", "0.33.0")
    on_vllm = equivalent_flags(vl, [sg])
    assert on_vllm["--tp-size"] == "--tensor-parallel-size"
    assert on_vllm["--mem-fraction-static"] == "--gpu-memory-utilization"
    assert on_vllm["--context-length"] == "--max-model-len"
    assert on_vllm["--disable-radix-cache"] == "--no-enable-prefix-caching"
    on_sglang = equivalent_flags(sg, [vl])
    assert on_sglang["--gpu-memory-utilization"] == "--mem-fraction-static"
    assert on_sglang["--max-num-seqs"] == "--max-running-requests"
    assert on_sglang["--no-enable-prefix-caching"] == "--disable-radix-cache"
    assert on_sglang["--enable-prefix-caching"].startswith("nothing to pass")


def test_converter_supplements_match_their_schemas() -> None:
    """frameworks/data/converters/*.json (scripts/gen_converter_types.py) must describe the bundled schema
    of the same release: every dest exists and the closure names agree."""
    import json

    from argtrace.frameworks.schema import CONVERTER_DIR

    for path in sorted(CONVERTER_DIR.glob("*.json")):
        data = json.loads(path.read_text())
        framework, version = data["framework"], data["version"]
        assert version in bundled_versions(framework), path.name
        schema = load_schema(framework, version)
        for dest, full in data["types"].items():
            specs = schema.options_for_dest(dest)
            assert specs, f"{path.name}: {dest} is not an option of {framework} {version}"
            assert any(s.type == full for s in specs), f"{path.name}: {dest} type {full} not merged"
        for dest in data.get("dataclasses", {}):
            assert schema.config_dataclass(dest) is not None
