"""Parallel sizes are named by the framework's configuration field and honoured by memory sizing, on every
bundled release (issue 11, "Settings named as the server names them").

SGLang 0.5.10.post1 stores ``--tp-size`` as the argparse dest ``tensor_parallel_size`` and renames it to the
field ``tp_size`` in ``ServerArgs.from_cli_args``; later releases use ``tp_size`` throughout. vLLM's
``EngineArgs.from_cli_args`` reads every dataclass field from the dest of the same name, so its dests are
its fields (``scripts/gen_field_names.py`` checks that shape in each release's wheel). Memory figures are
the weights per rank argtrace computes for Llama 3.1 8B in bf16 (16,060,538,880 bytes on one GPU,
8,030,543,872 at TP 2: the norms are replicated) and Qwen3.6-35B-A3B (70,213,943,040 on one GPU,
35,107,148,288 at TP 2).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key
from tests.conftest import REPO, run_cli

SGLANG = bundled_versions("sglang")
VLLM = bundled_versions("vllm")
LLAMA_8B = 16_060_538_880
LLAMA_8B_TP2 = 8_030_543_872
QWEN_35B_TP2 = 35_107_148_288


def check(version: str, command: str, *extra: str) -> dict[str, Any]:
    argv = [
        "check",
        "--no-resolve",
        "--format",
        "json",
        "--framework-version",
        version,
        *extra,
        "-c",
        command,
    ]
    result = run_cli(argv, cwd=REPO)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def named(report: dict[str, Any]) -> dict[str, tuple[str, str, Any]]:
    return {s["name"]: (s["dest"], s["flag"], s["effective"]) for s in report["settings"]}


def weights(version: str, command: str, model: str = "llama-3.1-8b") -> int:
    report = check(version, command, "--gpu", "h100x8", "--model-config", f"tests/data/models/{model}")
    return int(report["memory"]["weights_bytes"])


def test_every_bundled_release_is_covered() -> None:
    assert SGLANG == [
        *("0.4.0.post2", "0.4.1.post7", "0.4.2.post4", "0.4.3.post4", "0.4.4.post4", "0.4.5.post3"),
        *("0.4.6.post5", "0.4.7.post1", "0.4.8.post1", "0.4.9.post6", "0.4.10.post2"),
        *("0.5.1.post3", "0.5.2", "0.5.3.post3", "0.5.4.post3", "0.5.5.post3", "0.5.6.post2", "0.5.7"),
        *("0.5.8.post1", "0.5.9", "0.5.10.post1", "0.5.11", "0.5.12.post1", "0.5.13.post1", "0.5.14"),
        *("0.5.15.post1", "0.5.16", "0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"),
    ]
    assert VLLM == [
        *("0.6.6.post1", "0.7.3", "0.8.5.post1", "0.9.2", "0.10.2"),
        *("0.11.0", "0.11.2", "0.12.0", "0.13.0", "0.14.1", "0.15.1", "0.16.0", "0.17.1", "0.18.1", "0.19.1"),
        *("0.20.2", "0.21.0", "0.22.1", "0.23.0", "0.24.0", "0.25.1"),
        *("0.26.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"),
    ]


@pytest.mark.parametrize("version", SGLANG)
def test_sglang_parallel_flags_are_named_by_their_fields(version: str) -> None:
    # --pp-size exists from 0.4.6.post5 on (the schemas say so): a release without it is given the others
    sizes = [s for s in ("tp", "pp", "dp", "ep") if load_schema("sglang", version).option(f"--{s}-size")]
    assert sizes == (
        ["tp", "pp", "dp", "ep"] if version_key(version) >= version_key("0.4.6") else ["tp", "dp", "ep"]
    )
    command = "python3 -m sglang.launch_server --model-path /m " + " ".join(f"--{s}-size 2" for s in sizes)
    got = named(check(version, command))
    # up to 0.5.13.post1 the dests are the long names, renamed by from_cli_args (field_names.json says so)
    old = version_key(version) <= version_key("0.5.13.post1")
    expected = {
        "tp_size": ("tensor_parallel_size" if old else "tp_size", "--tp-size", 2),
        "pp_size": ("pipeline_parallel_size" if old else "pp_size", "--pp-size", 2),
        "dp_size": ("data_parallel_size" if old else "dp_size", "--dp-size", 2),
        "ep_size": ("expert_parallel_size" if old else "ep_size", "--ep-size", 2),
    }
    assert {f"{s}_size": got[f"{s}_size"] for s in sizes} == {
        f"{s}_size": expected[f"{s}_size"] for s in sizes
    }
    # no setting is named by a dest the server never reports
    assert not {"tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"} & set(got)


@pytest.mark.parametrize("version", VLLM)
def test_vllm_parallel_flags_are_named_by_their_engine_args_fields(version: str) -> None:
    command = (
        "vllm serve /m --tensor-parallel-size 2 --pipeline-parallel-size 2 --data-parallel-size 2 "
        "--enable-expert-parallel"
    )
    got = named(check(version, command))
    expected = {
        "tensor_parallel_size": ("tensor_parallel_size", "--tensor-parallel-size", 2),
        "pipeline_parallel_size": ("pipeline_parallel_size", "--pipeline-parallel-size", 2),
        "data_parallel_size": ("data_parallel_size", "--data-parallel-size", 2),
        "enable_expert_parallel": ("enable_expert_parallel", "--enable-expert-parallel", True),
    }
    from argtrace.frameworks.schema import load_schema

    schema = load_schema("vllm", version)
    for name, (_dest, flag, _value) in list(expected.items()):
        if schema.option(flag) is None:  # 0.6-0.7 have no data or expert parallelism: an unknown flag
            expected[name] = (None, flag, None)
    assert {
        k: got[k] for k in got if k.endswith("_parallel_size") or k == "enable_expert_parallel"
    } == expected
    unknown = [k for k, (dest, _, _) in expected.items() if dest is None]
    assert unknown == (
        ["data_parallel_size", "enable_expert_parallel"] if version in ("0.6.6.post1", "0.7.3") else []
    )


def test_field_names_cover_every_bundled_release_of_both_frameworks() -> None:
    data = json.loads((REPO / "src/argtrace/frameworks/data/field_names.json").read_text())
    assert sorted(data) == ["sglang", "vllm"]
    assert sorted(data["sglang"], key=SGLANG.index) == SGLANG
    # vLLM: from_cli_args copies every field by name (checked in the wheels of 0.11.0 and 0.33.0); the
    # releases bundled later from their parsers alone have no entry, which means the same: no renames
    assert data["vllm"] == {"0.11.0": {}, "0.33.0": {}}
    assert set(data["vllm"]) <= set(VLLM)
    for version in ("0.5.10.post1", "0.5.12.post1", "0.5.13.post1"):
        assert data["sglang"][version]["tensor_parallel_size"] == "tp_size"
    assert data["sglang"]["0.5.15.post1"] == {}
    assert data["sglang"]["0.5.10.post1"]["pipeline_parallel_size"] == "pp_size"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_field_names", REPO / "scripts/gen_field_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_field_names"] = module
    spec.loader.exec_module(module)
    return module


def test_the_generator_reads_vllms_engine_args_by_ast() -> None:
    from argtrace.frameworks.schema import load_schema
    from argtrace.resolver.environments import find_environment

    env = find_environment("vllm", "0.33.0")
    if env is None:
        pytest.skip("no vllm 0.33.0 resolver environment")
    source = next(Path(env.path).glob("lib/python3*/site-packages/vllm/engine/arg_utils.py")).read_text()
    gen = _generator()
    assert gen.vllm_renames(source) == {}
    fields = gen.engine_args_fields(source)
    assert {"tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"} <= set(fields)
    assert "enable_expert_parallel" in fields
    # every field but a few internal ones is a CLI dest, so a dest is the field the server reports
    dests = set(load_schema("vllm", "0.33.0").dests)
    assert sorted(f for f in fields if f not in dests) == [
        "_api_process_count",
        "_api_process_rank",
        "enable_mm_processor_stats",
        "mamba_config",
        "model_weights",
    ]
    with pytest.raises(SystemExit, match="no longer copies fields by name"):
        gen.vllm_renames("class EngineArgs:\n    def from_cli_args(cls, args):\n        return cls()\n")


# ------------------------------------------------------------------------------------------ memory sizing


@pytest.mark.parametrize("version", SGLANG)
def test_sglang_memory_sizing_honours_tp_dp_and_ep(version: str) -> None:
    launch = "python3 -m sglang.launch_server --model-path /m "
    assert weights(version, launch + "--tp-size 2") == LLAMA_8B_TP2
    assert weights(version, launch + "--dp-size 2") == LLAMA_8B  # each DP replica holds the whole model
    # EP splits the experts over the TP ranks it shares: per rank the same bytes as TP alone
    moe = weights(version, launch + "--tp-size 2 --ep-size 2", "qwen3.6-35b-a3b")
    assert moe == weights(version, launch + "--tp-size 2", "qwen3.6-35b-a3b") == QWEN_35B_TP2


@pytest.mark.parametrize("version", VLLM)
def test_vllm_memory_sizing_honours_tp_dp_and_ep(version: str) -> None:
    assert weights(version, "vllm serve /m --tensor-parallel-size 2") == LLAMA_8B_TP2
    assert weights(version, "vllm serve /m --data-parallel-size 2") == LLAMA_8B
    moe = weights(
        version, "vllm serve /m --tensor-parallel-size 2 --enable-expert-parallel", "qwen3.6-35b-a3b"
    )
    assert moe == QWEN_35B_TP2


@pytest.mark.parametrize(
    ("version", "command", "stage", "expected"),
    [
        # SGLang's LlamaForCausalLM builds its untied lm_head on every PP rank (llama.py:476-484), so stage 0
        # (embedding + 16 layers + lm_head) is the heavier one: 16 x 436,224,512 + 2 x 1,050,673,152
        ("0.5.10.post1", "python3 -m sglang.launch_server --model-path /m --pp-size 2", 0, 9_080_938_496),
        # vLLM: the embedding on stage 0, the lm_head and the final norm (8,192 B) on stage 1
        ("0.33.0", "vllm serve /m --pipeline-parallel-size 2", 1, 8_030_273_536),
    ],
)
def test_memory_sizing_honours_pipeline_parallelism(
    version: str, command: str, stage: int, expected: int
) -> None:
    report = check(version, command, "--gpu", "h100x8", "--model-config", "tests/data/models/llama-3.1-8b")
    memory = report["memory"]
    assert memory["weights_bytes"] == expected
    assert memory["pipeline"]["worst_stage"] == stage
    assert memory["pipeline"]["partition"] == [[0, 16], [16, 32]]
    assert memory["kv_layers"] == 16
    assert memory["per"] == f"one rank of pipeline stage {stage} (of 2) after TP/EP sharding, bytes"
