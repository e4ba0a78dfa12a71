"""Pipeline parallelism in memory sizing (issue 11): every stage sized with its own layers, the worst named.

Numbers are argtrace's per-rank bytes for the bundled configs. Llama 3.1 8B in bf16: one decoder layer is
436,224,512 B (218,120,704 at TP 2), the embedding table 1,050,673,152 B (525,336,576 at TP 2), the final
norm 8,192 B. SGLang's ``get_pp_indices`` gives an uneven remainder to the last stages, vLLM's to the stages
before the last, so DeepSeek-V3's 61 layers over PP 4 split differently in the two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.schema import bundled_versions
from argtrace.layers.memory import analyze_memory
from argtrace.layers.memory import pipeline as pl
from argtrace.resolver.environments import find_environment
from tests.conftest import REPO, run_cli

MODELS = REPO / "tests/data/models"
LAYER_TP2 = 218_120_704
TABLE_TP2 = 525_336_576
NORM = 8_192


def memory(model: str | Path, framework: str, version: str, gpu: str = "h100x8", **settings: Any) -> Any:
    path = model if isinstance(model, Path) else MODELS / model
    env = settings.pop("env", {})
    return analyze_memory(path, gpu, settings, framework, version, env=env)


@pytest.fixture
def no_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No resolver environment and no wheel: the documented rule must answer."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "empty-cache"))


@pytest.mark.usefixtures("no_sources")
def test_uneven_split_follows_each_frameworks_documented_rule() -> None:
    sglang = pl.partition("sglang", "0.5.21", 61, 4)
    vllm = pl.partition("vllm", "0.24.0", 61, 4)
    assert [(s.start, s.end) for s in sglang.stages] == [(0, 15), (15, 30), (30, 45), (45, 61)]
    assert [(s.start, s.end) for s in vllm.stages] == [(0, 15), (15, 30), (30, 46), (46, 61)]
    assert sglang.basis == vllm.basis == "documented rule"
    assert vllm.source == (
        "vLLM's get_pp_indices rule (vllm/distributed/utils.py: the remainder goes to the stages before the "
        "last); the source of vllm 0.24.0 is not on this machine"
    )
    # vLLM keeps the first and the last stage light while the remainder fits in the middle ones
    assert [s.end - s.start for s in pl.partition("vllm", "0.24.0", 62, 4).stages] == [15, 16, 16, 15]
    assert [s.end - s.start for s in pl.partition("sglang", "0.5.21", 62, 4).stages] == [15, 15, 16, 16]


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("framework", "version", "line"),
    [("sglang", "0.5.10.post1", 99), ("sglang", "0.5.23", 110), ("vllm", "0.33.0", 198)],
)
def test_the_releases_own_function_runs_and_agrees_with_the_documented_rule(
    framework: str, version: str, line: int
) -> None:
    if find_environment(framework, version) is None:
        pytest.skip(f"no {framework} {version} resolver environment")
    relative = pl.SOURCE_FILE[framework]
    for layers, pp in ((61, 4), (32, 2), (52, 4), (62, 4), (7, 3), (80, 6)):
        own = pl.partition(framework, version, layers, pp)
        assert own.basis == "framework-code"
        assert (
            own.source
            == f"{framework} {version}'s own get_pp_indices ({relative}:{line}, in its resolver environment)"
        )
        rule = [pl.documented_indices(framework, layers, rank, pp, None) for rank in range(pp)]
        assert [(s.start, s.end) for s in own.stages] == rule
    # the override variable, read from the launch's environment by the framework's own code
    variable = pl.OVERRIDE_VARIABLE[framework]
    own = pl.partition(framework, version, 61, 4, {variable: "10,20,20,11"})
    assert [(s.start, s.end) for s in own.stages] == [(0, 10), (10, 30), (30, 50), (50, 61)]
    assert own.override == "10,20,20,11"
    bad = pl.partition(framework, version, 61, 4, {variable: "30,31"})
    assert bad.error == "len(partitions)=2 does not match pp_size=4."
    assert pl.partition(framework, version, 61, 4, {variable: "16,15,15,16"}).error == (
        "sum(partitions)=62 does not match num_hidden_layers=61."
    )


@pytest.mark.usefixtures("no_sources")
def test_a_bad_partition_override_is_the_frameworks_error() -> None:
    result = memory(
        "llama-3.1-8b", "sglang", "0.5.21", pp_size=4, env={"SGLANG_PP_LAYER_PARTITION": "8,8,x,8"}
    )
    (finding,) = [f for f in result.findings if f.code == "MM007"]
    assert finding.message == (
        "pp_size 4: Invalid partition string: 8,8,x,8 (SGLang's get_pp_indices rule "
        "(sglang/srt/distributed/utils.py: the last `remainder` stages get one layer more); the source of "
        "sglang 0.5.21 is not on this machine)"
    )
    assert finding.setting == "pp_size"
    assert result.sections["memory"]["weights_bytes"] is None


@pytest.mark.parametrize("version", bundled_versions("sglang"))
def test_sglang_stages_of_llama_8b_on_every_release(version: str) -> None:
    m = memory("llama-3.1-8b", "sglang", version, tp_size=2, pp_size=4).sections["memory"]
    rows = m["pipeline"]["stages"]
    # llama.py: the embedding on the first rank, an untied lm_head on every rank, the norm on the last
    assert [(r["layers"], r["embedding"], r["lm_head"]) for r in rows] == [
        ([0, 8], True, True),
        ([8, 16], False, True),
        ([16, 24], False, True),
        ([24, 32], False, True),
    ]
    assert [r["weights_bytes"] for r in rows] == [
        8 * LAYER_TP2 + 2 * TABLE_TP2,
        8 * LAYER_TP2 + TABLE_TP2,
        8 * LAYER_TP2 + TABLE_TP2,
        8 * LAYER_TP2 + TABLE_TP2 + NORM,
    ]
    assert [r["kv_layers"] for r in rows] == [8, 8, 8, 8]
    assert {r["kv_bytes_per_token"] for r in rows} == {8 * 2 * 4 * 128 * 2}
    # the token capacity is all_reduce(MIN)'d over the PP ranks: every stage allocates the smallest's
    assert len({r["max_total_num_tokens"] for r in rows}) == 1
    assert m["pipeline"]["worst_stage"] == 0
    assert m["weights_bytes"] == 2_795_638_784
    assert m["max_total_num_tokens"] == rows[0]["max_total_num_tokens"]


@pytest.mark.parametrize("version", bundled_versions("vllm"))
def test_vllm_stages_of_llama_8b_on_every_release(version: str) -> None:
    m = memory("llama-3.1-8b", "vllm", version, tensor_parallel_size=2, pipeline_parallel_size=4).sections[
        "memory"
    ]
    rows = m["pipeline"]["stages"]
    assert [(r["embedding"], r["lm_head"]) for r in rows] == [
        (True, False),
        (False, False),
        (False, False),
        (False, True),
    ]
    assert [r["weights_bytes"] for r in rows] == [
        8 * LAYER_TP2 + TABLE_TP2,
        8 * LAYER_TP2,
        8 * LAYER_TP2,
        8 * LAYER_TP2 + TABLE_TP2 + NORM,
    ]
    # get_kv_cache_configs gives every rank the smallest rank's block count: the last stage's here
    assert m["pipeline"]["worst_stage"] == 3
    assert m["weights_bytes"] == 2_270_310_400
    assert m["vllm"]["num_blocks"] == min(r["num_blocks"] for r in rows)


def _tied_llama(tmp_path: Path) -> Path:
    config = json.loads((MODELS / "llama-3.1-8b/config.json").read_text())
    config["tie_word_embeddings"] = True
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


def test_tied_embeddings_per_framework(tmp_path: Path) -> None:
    model = _tied_llama(tmp_path)
    sglang = memory(model, "sglang", "0.5.10.post1", tp_size=2, pp_size=2).sections["memory"]["pipeline"]
    vllm = memory(model, "vllm", "0.33.0", tensor_parallel_size=2, pipeline_parallel_size=2).sections[
        "memory"
    ]["pipeline"]
    # SGLang's Llama ties lm_head to embed_tokens, which only the first rank holds (llama.py:338, :476)
    assert [r["weights_bytes"] for r in sglang["stages"]] == [
        16 * LAYER_TP2 + TABLE_TP2,
        16 * LAYER_TP2 + NORM,
    ]
    # vLLM builds the embedding on the last rank too when tied (llama.py:377-379): one table on each end
    assert [r["weights_bytes"] for r in vllm["stages"]] == [
        16 * LAYER_TP2 + TABLE_TP2,
        16 * LAYER_TP2 + TABLE_TP2 + NORM,
    ]
    # without PP, a tied table is one copy
    assert memory(model, "vllm", "0.33.0", tensor_parallel_size=2).sections["memory"]["weights_bytes"] == (
        32 * LAYER_TP2 + TABLE_TP2 + NORM
    )


def test_61_layers_over_pp_4_name_the_stage_that_does_not_fit() -> None:
    sglang = memory("deepseek-v3", "sglang", "0.5.10.post1", tp_size=2, pp_size=4)
    m = sglang.sections["memory"]
    assert m["pipeline"]["partition"] == [[0, 15], [15, 30], [30, 45], [45, 61]]
    assert [r["oom_stage"] for r in m["pipeline"]["stages"]] == ["kv_cache", "weights", "weights", "weights"]
    assert m["pipeline"]["worst_stage"] == 3
    assert (m["oom_stage"], m["weights_bytes"], m["kv_layers"]) == ("weights", 93_022_526_336, 16)
    (oom,) = [f for f in sglang.findings if f.code == "MM001"]
    assert oom.fix == (
        "no setting fits on this GPU: use more GPUs (--tp-size, or more pipeline stages with --pp-size) or a "
        "quantized checkpoint"
    )
    split = (
        "the framework's own get_pp_indices"
        if find_environment("sglang", "0.5.10.post1")
        else "the documented rule (the release's source is not on this machine)"
    )
    assert oom.message.startswith(
        "out of memory at weights on h100 (pipeline stage 3 (layers 45-60) of 4, the stage that runs out "
        f"first; split by {split}): the weights alone do not fit on one GPU (short by 8.14 GiB per GPU)"
    )
    vllm = memory("deepseek-v3", "vllm", "0.33.0", tensor_parallel_size=2, pipeline_parallel_size=4)
    v = vllm.sections["memory"]
    assert v["pipeline"]["partition"] == [[0, 15], [15, 30], [30, 46], [46, 61]]
    # vLLM's third stage holds the 16th layer and is the heaviest; its last holds the lm_head over 15
    assert [r["weights_bytes"] for r in v["pipeline"]["stages"]] == [
        70_874_066_248,
        86_339_843_400,
        92_095_832_960,
        87_266_536_776,
    ]
    assert v["pipeline"]["worst_stage"] == 2
    (oom,) = [f for f in vllm.findings if f.code == "MM001"]
    assert "(pipeline stage 2 (layers 30-45) of 4, the stage that runs out first; split by " in oom.message
    assert "(short by 7.08 GiB per GPU)" in oom.message


@pytest.mark.parametrize(
    ("version", "slots"), [("0.5.10.post1", [301, 306, 306, 301]), ("0.5.23", [1206, 1226, 1226, 1206])]
)
def test_hybrid_mamba_model_over_pp(version: str, slots: list[int]) -> None:
    m = memory("nemotron-h-8b", "sglang", version, pp_size=4).sections["memory"]
    rows = m["pipeline"]["stages"]
    # 52 layers: 24 Mamba2, 4 attention (7, 18, 29, 40), 24 MLP; 13 per stage
    assert [r["layers"] for r in rows] == [[0, 13], [13, 26], [26, 39], [39, 52]]
    assert [(r["kv_layers"], r["mamba_layers"]) for r in rows] == [(1, 6)] * 4
    # each rank allocates its 6 Mamba layers' state: a quarter of the model's 102,137,856 B per slot
    assert {r["mamba_bytes_per_slot"] for r in rows} == {25_534_464}
    assert (m["mamba_conv_bytes_per_slot"], m["mamba_ssm_bytes_per_slot"]) == (368_640, 25_165_824)
    # 0.5.10.post1 budgets each slot with every Mamba layer of the model (mamba_cache_per_req), 0.5.19+
    # with the largest stage's share: four times the slots here
    assert [r["max_mamba_cache_size"] for r in rows] == slots
    assert m["pipeline"]["worst_stage"] == 3
    assert m["weights_bytes"] == rows[3]["weights_bytes"] == 4_587_303_936


def test_vllm_hybrid_mamba_over_pp() -> None:
    m = memory("nemotron-h-8b", "vllm", "0.33.0", pipeline_parallel_size=4).sections["memory"]
    rows = m["pipeline"]["stages"]
    assert [(r["kv_layers"], r["mamba_layers"]) for r in rows] == [(1, 6)] * 4
    assert [r["weights_bytes"] for r in rows] == [4_587_295_744, 3_513_553_920, 3_513_553_920, 4_587_303_936]
    assert m["pipeline"]["worst_stage"] == 3


def test_more_stages_than_gpus_and_no_pp_unchanged() -> None:
    result = memory(
        "llama-3.1-8b", "vllm", "0.33.0", gpu="h100x4", tensor_parallel_size=2, pipeline_parallel_size=4
    )
    assert [f.message for f in result.findings if f.code == "MM007"] == [
        "tensor_parallel_size 2 x pipeline_parallel_size 4 needs 8 GPUs; --gpu has 4"
    ]
    plain = memory("llama-3.1-8b", "sglang", "0.5.10.post1", tp_size=2).sections["memory"]
    assert "pipeline" not in plain
    assert plain["per"] == "rank 0 after TP/EP sharding, bytes"


@pytest.mark.usefixtures("no_sources")
def test_mem_text_names_the_worst_stage_and_lists_every_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    argv = ["mem", "--model-config", "tests/data/models/deepseek-v3", "--gpu", "h100x8", "--"]
    text = run_cli([*argv, "--pp-size", "4", "--tp-size", "2"], cwd=REPO).stdout
    assert (
        "  pipeline stage 3 of 4 (layers 45-60) runs out first; the figures below are its ranks' "
        "(split: documented rule)\n"
        "    stage 0: layers 0-14 + embedding, weights 66.01 GiB, OOM at kv_cache\n"
        "    stage 1: layers 15-29, weights 80.41 GiB, OOM at weights\n"
        "    stage 2: layers 30-44, weights 80.41 GiB, OOM at weights\n"
        "    stage 3: layers 45-60 + lm_head, weights 86.63 GiB, OOM at weights\n"
        "  . context + other processes         0.70 GiB\n"
        "  W weights                          86.63 GiB\n"
    ) in text


def _wheel(cache: Path, version: str, body: str) -> None:
    import zipfile

    (cache / "wheels").mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(cache / "wheels" / f"sglang-{version}-py3-none-any.whl", "w") as archive:
        archive.writestr("sglang/srt/distributed/utils.py", body)


def test_a_wheel_in_the_cache_is_read_and_a_function_that_cannot_run_alone_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path))
    # a stand-in release whose rule puts every extra layer first (not SGLang's): its own function is used
    _wheel(
        tmp_path,
        "9.9.1",
        "import os\n\n\ndef helper():\n    pass\n\n\n"
        "def get_pp_indices(num_hidden_layers: int, pp_rank: int, pp_size: int) -> Tuple[int, int]:\n"
        "    base, extra = divmod(num_hidden_layers, pp_size)\n"
        "    sizes = [base + (1 if r < extra else 0) for r in range(pp_size)]\n"
        "    return sum(sizes[:pp_rank]), sum(sizes[: pp_rank + 1])\n",
    )
    own = pl.partition("sglang", "9.9.1", 61, 4)
    assert own.basis == "framework-code"
    assert own.source == (
        "sglang 9.9.1's own get_pp_indices (sglang/srt/distributed/utils.py:8, "
        "in sglang-9.9.1-py3-none-any.whl)"
    )
    assert [(s.start, s.end) for s in own.stages] == [(0, 16), (16, 31), (31, 46), (46, 61)]
    # one that needs the rest of its module: the documented rule, and why
    _wheel(tmp_path, "9.9.2", "def get_pp_indices(n, rank, size):\n    return helper(n, rank, size)\n")
    fallback = pl.partition("sglang", "9.9.2", 61, 4)
    assert fallback.basis == "documented rule"
    assert fallback.source.endswith(
        "; sglang 9.9.2's own get_pp_indices cannot run alone (NameError: name 'helper' is not defined)"
    )
    assert [(s.start, s.end) for s in fallback.stages] == [(0, 15), (15, 30), (30, 45), (45, 61)]


def test_sglangs_own_sizing_is_not_run_for_one_rank_under_pp() -> None:
    # framework_sizing.py drives one ModelRunner: with PP the stages stay the formulas', and a note says so
    result = analyze_memory(
        MODELS / "llama-3.1-8b",
        "h100x8",
        {"pp_size": 2},
        "sglang",
        "0.5.23",
        framework_argv=["--model-path", "/m", "--pp-size", "2"],
    )
    m = result.sections["memory"]
    assert "framework_sizing" not in m
    assert m["source"] == "argtrace formulas after sglang 0.5.10.post1"
    assert (
        "pp_size 2: SGLang's own sizing runs for one rank; every pipeline stage is sized by the formulas"
        in (m["notes"])
    )


def test_a_logs_figures_are_stage_0s() -> None:
    # Load weight begin/end figures are rank 0's: stage 0 is reported, sized from them, and not re-synced
    from argtrace.layers.memory.analyze import analyze_memory as analyze

    gib = 1 << 30
    result = analyze(
        MODELS / "llama-3.1-8b",
        "h100x8",
        {"pp_size": 2},
        "sglang",
        "0.5.10.post1",
        pre_load_bytes=int(78.5 * gib),
        post_load_bytes=int(70.0 * gib),
    )
    pipeline = result.sections["memory"]["pipeline"]
    assert (pipeline["reported"], pipeline["worst_stage"]) == ("log", 0)
    assert (
        pipeline["synced"]
        == "stage 0 sized from the log's own figures (rank 0's); the other stages are estimates"
    )
    assert result.sections["memory"]["weights_bytes"] == int(8.5 * gib)  # the log's begin - end
    vllm = analyze_memory(
        MODELS / "llama-3.1-8b", "h100x8", {"pipeline_parallel_size": 2}, "vllm", "0.33.0"
    ).sections["memory"]["pipeline"]
    assert (vllm["reported"], vllm["worst_stage"]) == ("worst", 1)
