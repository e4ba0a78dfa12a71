"""Facts of the bundled schemas and raise-site indexes, as generated from the real wheels by
scripts/gen_schemas.py (re-verified there against each framework's own parser)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "src" / "argtrace" / "frameworks" / "data"
BUNDLED = [
    "sglang-0.5.10.post1",
    "sglang-0.5.15.post1",
    "sglang-0.5.19",
    "sglang-0.5.23",
    "vllm-0.33.0",
    "vllm-0.11.0",
]
SEED_ERROR = (
    "Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix cache when using "
    "--mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use "
    "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1."
)


@cache
def schema(name: str) -> dict[str, Any]:
    """The full schema dict (the files are stored as shared parts + per-release files, schema_store.py)."""
    from argtrace.frameworks.schema import load_schema

    framework, version = name.split("-", 1)
    return dict(load_schema(framework, version).data)


@cache
def raise_index(name: str) -> dict[str, Any]:
    """The full raise-site index (stored shared like the schemas, schema_store.py)."""
    from argtrace.resolver.raise_index import load_index

    framework, version = name.split("-", 1)
    index = load_index(framework, version)
    assert index is not None, name
    return index


def option(name: str, flag: str) -> dict[str, Any] | None:
    return next((o for o in schema(name)["options"] if flag in o["option_strings"]), None)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_schema_names_generator_and_source(name: str) -> None:
    s = schema(name)
    framework, version = name.split("-", 1)
    assert s["format"] == 1 and s["framework"] == framework and s["version"] == version
    assert s["generated_by"] == "scripts/gen_schemas.py"
    assert s["source"].startswith(f"{framework}=={version} wheel from PyPI")
    assert re.fullmatch(r"[0-9a-f]{64}", s["wheel_sha256"]) and s["wheel_sha256"] in s["source"]
    assert {"parser", "options", "positionals", "env_vars", "json_flags"} <= set(s)
    for key in ("class", "allow_abbrev", "prefix_chars", "argv_rewrites", "entrypoints"):
        assert key in s["parser"]
    for opt in s["options"]:
        assert {
            "option_strings",
            "dest",
            "action",
            "action_module",
            "nargs",
            "const",
            "type",
            "choices",
            "default",
            "required",
            "help",
            "metavar",
            "deprecated",
            "group",
        } <= set(opt)
    dests = {o["dest"] for o in s["options"]}
    assert set(s["json_flags"]) <= dests
    idx = raise_index(name)
    assert idx["generated_by"] == "scripts/gen_schemas.py" and idx["source"] == s["source"]
    assert idx["sites"]


def test_sglang_0_5_10_mamba_scheduler_strategy() -> None:
    opt = option("sglang-0.5.10.post1", "--mamba-scheduler-strategy")
    assert opt is not None
    assert opt["dest"] == "mamba_scheduler_strategy"
    assert opt["action"] == "store" and opt["action_module"] == "argparse"
    assert {"auto", "no_buffer", "extra_buffer"} <= set(opt["choices"])
    assert opt["default"] == "auto" and opt["deprecated"] is False
    p = schema("sglang-0.5.10.post1")["parser"]
    assert p["class"] == "ArgumentParser" and p["allow_abbrev"] is True and p["prog"] == "sglang serve"
    assert option("sglang-0.5.10.post1", "--mamba-radix-cache-strategy") is None


def test_sglang_0_5_15_mamba_scheduler_strategy_is_a_deprecated_alias() -> None:
    opt = option("sglang-0.5.15.post1", "--mamba-scheduler-strategy")
    assert opt is not None
    assert opt["dest"] == "mamba_radix_cache_strategy"
    assert opt["action"] == "DeprecatedAliasStoreAction"
    assert opt["action_module"] == "sglang.srt.arg_groups.argparse_actions"
    assert opt["behaves_like"] == "store"
    assert isinstance(opt["deprecated"], str) and "--mamba-radix-cache-strategy" in opt["deprecated"]
    new = option("sglang-0.5.15.post1", "--mamba-radix-cache-strategy")
    assert new is not None and new["dest"] == "mamba_radix_cache_strategy"
    assert {"auto", "no_buffer", "extra_buffer"} <= set(new["choices"])


def test_sglang_0_5_23_has_no_mamba_scheduler_strategy_and_rewrites_argv() -> None:
    assert option("sglang-0.5.23", "--mamba-scheduler-strategy") is None
    assert option("sglang-0.5.23", "--mamba-radix-cache-strategy") is not None
    rewrites = {r["name"]: r for r in schema("sglang-0.5.23")["parser"]["argv_rewrites"]}
    assert "config_yaml" in rewrites and rewrites["config_yaml"]["where"].startswith(
        "sglang/srt/server_args.py:"
    )
    assert rewrites["serve_positional_model"]["where"].startswith("sglang/cli/serve.py:")
    assert "serve_positional_model" not in {
        r["name"] for r in schema("sglang-0.5.10.post1")["parser"]["argv_rewrites"]
    }


def test_vllm_0_33_parser() -> None:
    s = schema("vllm-0.33.0")
    assert s["parser"]["class"] == "FlexibleArgumentParser"
    assert s["parser"]["class_module"] == "vllm.utils.argparse_utils"
    opt = option("vllm-0.33.0", "--max-num-seqs")
    assert opt is not None and opt["dest"] == "max_num_seqs" and opt["type"] == "int"
    assert opt["group"] == "SchedulerConfig"
    names = {r["name"] for r in s["parser"]["argv_rewrites"]}
    assert {"underscore_to_dash", "config_yaml", "dotted_keys", "serve_model_flag_to_positional"} <= names
    assert [p["dest"] for p in s["positionals"]] == ["model_tag"]
    assert {"speculative_config", "compilation_config", "hf_overrides", "limit_mm_per_prompt"} <= set(
        s["json_flags"]
    )
    assert option("vllm-0.33.0", "-tp") is not None


def test_sglang_json_flags_come_from_code() -> None:
    assert "json_model_override_args" in schema("sglang-0.5.10.post1")["json_flags"]
    assert "model_path" not in schema("sglang-0.5.10.post1")["json_flags"]


def test_env_vars_come_from_the_frameworks_registries() -> None:
    sg = {e["name"]: e for e in schema("sglang-0.5.10.post1")["env_vars"]}
    spec_v2 = sg["SGLANG_ENABLE_SPEC_V2"]
    assert spec_v2["type"] == "bool" and spec_v2["default"] is False and spec_v2["source"] == "Envs"
    assert spec_v2["where"].startswith("sglang/srt/environ.py:")
    vl = {e["name"]: e for e in schema("vllm-0.33.0")["env_vars"]}
    assert vl["VLLM_HOST_IP"]["source"] == "envs.py" and vl["VLLM_HOST_IP"]["where"].startswith(
        "vllm/envs.py:"
    )
    assert all(e["name"].isupper() for e in schema("sglang-0.5.23")["env_vars"])


def test_seed_error_raise_site_in_0_5_10() -> None:
    sites = [
        s
        for s in raise_index("sglang-0.5.10.post1")["sites"]
        if s["regex"] and re.search(s["regex"], "ValueError: " + SEED_ERROR)
    ]
    assert len(sites) == 1
    site = sites[0]
    assert site["file"] == "sglang/srt/server_args.py"
    assert site["function"] == "ServerArgs._handle_mamba_radix_cache"
    assert site["exception"] == "ValueError"
    assert site["message"].startswith("Speculative decoding for {model_arch} is not compatible")
    assert site["conditions"][-1] == "not self.disable_radix_cache"
    assert {"disable_radix_cache", "speculative_algorithm"} <= set(site["fields"])
    # the placeholders are wildcards: the model class name is not part of the pattern
    assert re.search(site["regex"], SEED_ERROR.replace("Qwen3_5ForConditionalGeneration", "X"))


def test_bundled_data_is_modest() -> None:
    total = sum(p.stat().st_size for p in DATA.rglob("*.json"))
    # schemas, raise sites and indexes in shared storage (issue 15): 6.9 MB of JSON with 34 SGLang and 29
    # vLLM releases (docs/frameworks.md); 8.09 MB since session 22's generated tables (SGLang's start-up
    # overrides 114 KB, vLLM's engine overrides 27 KB, transformers' model types 31 KB, SGLang's helpers);
    # 8.50 MB since session 36's (the EAGLE draft counts' code lines of 24 SGLang wheels 13 KB, the
    # divisibility helpers' callers 7 KB, the Mamba track index's releases 3 KB); 7.54 MB since session 37
    # stored vLLM's patches without their key order (-0.97 MB), then its tables (SGLang's model classes'
    # weight names 45 KB and head asserts 61 KB, the frameworks' requirements 11 KB, SGLang's ports 1 KB)
    assert total < 8_600_000, total
