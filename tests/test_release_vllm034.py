"""vLLM 0.34.0 bundled (session 37, rel34): its parser schema (overlay of the real wheel over the 0.33.0
resolver environment), raise sites, message and assert indexes, model capabilities and the per-release
tables, all from vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl (sha256 79ca4b3c...); what it changed that
argtrace judges: the extensible KV cache refused beside a fixed KV size (PA069), the variables its
validate_environ refuses (PA071). The schemas are stored without the patches' key order (schema_pack)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import bundled_versions, load_schema
from argtrace.package_data import release_facts
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "src" / "argtrace" / "frameworks" / "data" / "schemas"
WHEEL = "vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl"


def _findings(*argv: str) -> list[tuple[str, str, str]]:
    result = run_cli(["check", "--no-resolve", "--format", "json", *argv])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = result.json
    return [(f["code"], f["severity"], f["message"]) for f in report["findings"]]


def test_0_34_0_is_the_newest_bundled_vllm_release() -> None:
    releases = bundled_versions("vllm", include_user=False)
    assert releases[-2:] == ["0.33.0", "0.34.0"] and len(releases) == 30
    schema = load_schema("vllm", "0.34.0")
    assert schema.data["wheel"] == WHEEL
    assert schema.data["generated_with"]["method"] == "overlay"
    assert schema.data["generated_with"]["dependencies_from"] == "vllm==0.33.0 resolver environment"
    assert len(schema.options) == 328


def test_no_stand_in_schema_for_0_34_0() -> None:
    codes = [c for c, _s, _m in _findings("--framework-version", "0.34.0", "-c", "vllm serve /m")]
    assert "PR008" not in codes
    # a release after it still gets the nearest older one, now 0.34.0
    assert (
        "PR008",
        "warning",
        "vllm 0.35.0 (requested) has no bundled parser schema; analysing with the nearest older bundled one, "
        "0.34.0. Flags added or removed after 0.34.0 may be misjudged.",
    ) in _findings("--framework-version", "0.35.0", "-c", "vllm serve /m")


def test_a_flag_new_in_0_34_0_is_known_there_and_refused_before() -> None:
    launch = "vllm serve /m --max-num-inflight-kv-loads 4 --cache-aware-admission-window 8"
    assert _findings("--framework-version", "0.34.0", "-c", launch) == []
    assert release_index("vllm").releases_knowing_flag("--enable-extensible-kv-cache") == ("0.34.0",)
    assert _findings("--framework-version", "0.33.0", "-c", "vllm serve /m --enable-extensible-kv-cache") == [
        (
            "PA004",
            "error",
            "--enable-extensible-kv-cache only exists from vllm 0.34.0 on; vllm 0.33.0 rejects it with "
            '"unrecognized arguments" (exit 2)',
        )
    ]


def test_a_variable_0_34_0_no_longer_reads_is_reported_as_such() -> None:
    """No flag of 0.33.0 is gone from 0.34.0's parser; two variables are. VLLM_USE_V2_MODEL_RUNNER=1 is only
    logged as redundant (validate_environ): the release ignores it."""
    assert load_schema("vllm", "0.33.0").env_var("VLLM_USE_V2_MODEL_RUNNER") is not None
    assert load_schema("vllm", "0.34.0").env_var("VLLM_USE_V2_MODEL_RUNNER") is None
    found = _findings("--framework-version", "0.34.0", "-c", "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve /m")
    assert [(c, s) for c, s, _m in found] == [("PR001", "warning")]
    assert found[0][2].endswith("0.31.0, 0.32.0, 0.33.0 but not by vllm 0.34.0: the release ignores it")


def test_a_variable_0_34_0_refuses_stops_the_start() -> None:
    assert _findings("--framework-version", "0.34.0", "-c", "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve /m") == [
        (
            "PA071",
            "error",
            'vllm 0.34.0 refuses VLLM_USE_V2_MODEL_RUNNER at start-up: "VLLM_USE_V2_MODEL_RUNNER=0 is no '
            'longer supported: Model Runner V1 has been removed. Unset this variable." '
            "(Platform.validate_environ, vllm/platforms/interface.py:1483, from "
            "EngineArgs.create_engine_config)",
        )
    ]
    (code, severity, message) = _findings(
        "--framework-version", "0.34.0", "-c", "VLLM_MARLIN_INPUT_DTYPE=int8 vllm serve /m"
    )[0]
    assert (code, severity) == ("PA071", "error")
    assert message.startswith(
        'vllm 0.34.0 refuses VLLM_MARLIN_INPUT_DTYPE at start-up: "VLLM_MARLIN_INPUT_DTYPE has been removed. '
        "Marlin no longer supports 8-bit activations. Use `--quantization humming`"
    )
    # 0.33.0 reads it: nothing
    assert (
        _findings("--framework-version", "0.33.0", "-c", "VLLM_MARLIN_INPUT_DTYPE=int8 vllm serve /m") == []
    )


def test_the_extensible_kv_cache_refused_beside_a_fixed_kv_size() -> None:
    assert _findings(
        "--framework-version",
        "0.34.0",
        "-c",
        "vllm serve /m --enable-extensible-kv-cache --kv-cache-memory-bytes 20G",
    ) == [
        (
            "PA069",
            "error",
            "vllm 0.34.0 refuses --enable-extensible-kv-cache with --kv-cache-memory-bytes at start-up: "
            '"enable_extensible_kv_cache: it sizes the KV cache from measured memory, which '
            'kv_cache_memory_bytes overrides." (VllmConfig._resolve_extensible_kv_cache, '
            "vllm/config/vllm.py:3263; the test at vllm/config/vllm.py:3203)",
        )
    ]


@pytest.mark.parametrize(
    "launch",
    [
        "vllm serve /m --kv-cache-memory-bytes 20G",  # turned off without a word
        "vllm serve /m --no-enable-extensible-kv-cache --num-gpu-blocks-override 100",
        "vllm serve /m --enable-extensible-kv-cache",
    ],
)
def test_the_extensible_kv_cache_otherwise_silent(launch: str) -> None:
    assert _findings("--framework-version", "0.34.0", "-c", launch) == []


def test_the_tables_hold_0_34_0() -> None:
    for table in (
        "frameworks/data/vllm_attention_names.json",
        "frameworks/data/vllm_all2all.json",
        "frameworks/data/vllm_dp_launch.json",
        "frameworks/data/vllm_draft_tp.json",
        "frameworks/data/vllm_mamba_cache.json",
        "frameworks/data/vllm_mtp_weights.json",
        "frameworks/data/vllm_aiter_switches.json",
        "frameworks/data/vllm_parsers.json",
        "frameworks/data/vllm_tokenizer_modes.json",
        "frameworks/data/vllm_config_fields.json",
        "frameworks/data/vllm_field_bounds.json",
        "frameworks/data/vllm_engine_overrides.json",
        "frameworks/data/vllm_config_file.json",
        "frameworks/data/vllm_kv_connectors.json",
        "frameworks/data/vllm_extensible_kv.json",
        "frameworks/data/vllm_refused_env.json",
    ):
        assert release_facts(table, "0.34.0") is not None, table
    bounds = release_facts("frameworks/data/vllm_field_bounds.json", "0.34.0") or {}
    assert bounds["fields"]["cache_aware_admission_threshold"] == {
        "at": "vllm/config/scheduler.py:237",
        "bounds": {"ge": 0.0, "le": 1.0},
        "field": "SchedulerConfig.cache_aware_admission_threshold",
    }


def test_patches_are_stored_without_a_key_order() -> None:
    """A patch's "order" cost 1.0 MB over the vLLM schemas and raise sites; nothing reads a key order."""
    for directory in (SCHEMA_DIR, SCHEMA_DIR.parent / "raise_sites"):
        for path in directory.glob("vllm-*.json"):
            assert '"order":' not in path.read_text(), path


def test_the_extensible_kv_generator_reads_the_chain() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_vllm_extensible_kv as gen

    text = """
class VllmConfig:
    def _resolve_extensible_kv_cache(self):
        cache_config = self.cache_config
        requested = cache_config.enable_extensible_kv_cache
        unsupported = None
        if not current_platform.is_cuda_alike():
            unsupported = "it is only supported on CUDA and ROCm"
        elif cache_config.kv_cache_memory_bytes is not None:
            unsupported = "fixed size"
        elif self.parallel_config.enable_elastic_ep:
            unsupported = "elastic"
        if requested is None:
            pass
        elif requested and unsupported is not None:
            raise ValueError(f"enable_extensible_kv_cache: {unsupported}.")
"""
    assert gen.facts(text) == {
        "flag": "enable_extensible_kv_cache",
        "blockers": [
            {
                "setting": "kv_cache_memory_bytes",
                "when": "given",
                "reason": "fixed size",
                "where": "vllm/config/vllm.py:9",
            },
            {
                "setting": "enable_elastic_ep",
                "when": "on",
                "reason": "elastic",
                "where": "vllm/config/vllm.py:11",
            },
        ],
        "refusal": {
            "message": "enable_extensible_kv_cache: {unsupported}.",
            "where": "vllm/config/vllm.py:16",
        },
    }
    assert gen.facts("def other(): pass\n") == {}
    data = json.loads((ROOT / "src/argtrace/frameworks/data/vllm_extensible_kv.json").read_text())
    assert data["releases"]["0.33.0"] == {} and data["wheels"]["0.34.0"] == WHEEL
