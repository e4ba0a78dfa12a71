"""Speculative-decoding start-up logs (EAGLE, EAGLE3, NEXTN) against the prediction.

Fixtures in tests/data/logs/memory (each file's first line names its public source):

- ``llama-3.1-8b-eagle3-docs-ci.log``, ``llama-2-7b-eagle-docs-ci.log`` and
  ``llama-2-7b-eagle-docs-ci-shared-gpu.log``: SGLang's docs CI running ``backend/speculative_decoding.ipynb``
  (2025-03-25 and 2025-04-03; target pool sized before the draft loads, as in SGLang 0.5.10.post1). The CI
  caps the pool with ``max_total_tokens=20480``, so the pool sizes test the cap, and the per-token bytes of
  target and draft are what the logs really measure.
- ``qwen3.8-flash-next-nextn-boot.log``: a NEXTN boot whose draft loads before any pool is sized (the
  scheduler-phased init of SGLang 0.5.15.post1 and later). No public config of that checkpoint is used, so it
  tests which line belongs to which worker only.

No public start-up log of a hybrid (Mamba / Gated DeltaNet) model with speculative decoding was found (see
docs/memory.md), so the Mamba speculative reserve and the intermediate-state buffers stay untested here.
"""

from __future__ import annotations

from argtrace.layers.memory.fromlog import read_log
from tests.conftest import REPO, run_cli

MODELS = REPO / "tests" / "data" / "models"
LOGS = REPO / "tests" / "data" / "logs" / "memory"
GIB = 1 << 30


def from_log(model: str, log: str, gpu: str = "h100") -> dict:
    result = run_cli(
        [
            "mem",
            "--format",
            "json",
            "--model-config",
            str(MODELS / model),
            "--gpu",
            gpu,
            "--from-log",
            str(LOGS / log),
        ]
    )
    assert result.status in (0, 1), result.stderr
    return result.json


def rows_of(memory: dict) -> dict[str, dict]:
    return {r["quantity"]: r for r in memory["from_log"]["rows"]}


def test_target_and_draft_lines_are_told_apart_target_pool_first() -> None:
    log = read_log(LOGS / "llama-3.1-8b-eagle3-docs-ci.log")
    # target: Load weight begin 78.58, end 63.48 / 15.11 (lines 9, 11); draft: begin 60.11, end 58.34 / 1.77
    assert (log.pre_load_gb, log.post_load_gb, log.weights_gb) == (78.58, 63.48, 15.11)
    assert (log.draft_pre_load_gb, log.draft_post_load_gb, log.draft_weights_gb) == (60.11, 58.34, 1.77)
    assert (log.lines["load_begin"], log.lines["load_end"]) == (9, 11)
    assert (log.lines["draft_load_begin"], log.lines["draft_load_end"]) == (17, 19)
    assert [(k.worker, k.line, k.tokens, k.k_gb, k.v_gb) for k in log.kv] == [
        ("target", 12, 20480, 1.25, 1.25),
        ("draft", 20, 20480, 0.04, 0.04),
    ]
    assert log.init_order == "target-pool-first"
    assert log.server_args["speculative_algorithm"] == "EAGLE3"
    assert log.server_args["speculative_num_draft_tokens"] == 32


def test_draft_loading_before_the_pools_moves_the_sizing_point() -> None:
    """0.5.15+ loads both models, then sizes the target pool from the free memory left after the draft."""
    log = read_log(LOGS / "qwen3.8-flash-next-nextn-boot.log")
    assert log.init_order == "loads-first"
    assert (log.pre_load_gb, log.weights_gb, log.target_post_load_gb) == (111.97, 82.97, 29.01)
    # the draft's own load (negative: the allocator released more than the MTP head took)
    assert (log.draft_pre_load_gb, log.draft_post_load_gb, log.draft_weights_gb) == (28.81, 30.67, -1.86)
    assert log.post_load_gb == 30.67
    # the only pool line comes after both loads: the target's
    assert [(k.worker, k.tokens) for k in log.kv] == [("target", 159552)]
    assert log.draft_kv is None


def test_logs_without_a_draft_keep_their_meaning() -> None:
    log = read_log(LOGS / "qwen3.5-9b-tp2-rtx4090.log")
    assert log.init_order is None and log.draft_kv is None and log.draft_pre_load_gb is None
    assert (log.pre_load_gb, log.post_load_gb) == (22.93, 14.08)
    assert [k.worker for k in log.kv] == ["target"]


def test_llama31_8b_eagle3_docs_ci() -> None:
    data = from_log("llama-3.1-8b", "llama-3.1-8b-eagle3-docs-ci.log")
    m = data["memory"]
    # target: 32 layers x 8 KV heads x (128 + 128) x 2 bytes (fp16, --dtype float16)
    assert m["kv_bytes_per_token"] == 32 * 8 * 256 * 2 == 131072
    # draft (EAGLE3 head, one decoder layer): the target's pool config over one layer
    assert m["draft_kv_bytes"] == (20480 + 1) * 8 * 256 * 2 == 83890176
    assert m["speculative"] == {"algorithm": "EAGLE3", "num_draft_tokens": 32, "reserve_bytes": 0}
    assert m["max_total_num_tokens"] == 20480  # max_total_tokens=20480 from the docs CI caps the pool
    assert m["max_running_requests"] == 200
    rows = rows_of(m)
    assert [(q, r["predicted"], r["logged"], r["ok"]) for q, r in rows.items()] == [
        ("K size GB (#tokens from log)", 1.25, 1.25, True),
        ("V size GB (#tokens from log)", 1.25, 1.25, True),
        ("draft K size GB (#tokens from log)", 0.04, 0.04, True),
        ("draft V size GB (#tokens from log)", 0.04, 0.04, True),
        ("max_total_num_tokens", 20480, 20480, True),
        ("max_running_requests", 200, 200, True),
        ("weights GB (estimate vs Load weight end)", 14.96, 15.11, True),
    ]
    assert rows["draft K size GB (#tokens from log)"]["line"] == 20
    # The external EAGLE3 checkpoint is not sized (argtrace reads the target's config only): no draft weights
    # row, and the section says so. The log's draft load is 1.77 GB.
    assert m["draft_weights_bytes"] == 0
    assert any("draft model" in n and "not sized" in n for n in m["notes"])
    # Without the cap the log's own avail mem leaves far more than 20480 tokens: the cap is what binds.
    rest = 63.48 * GIB - 78.58 * GIB * (1 - 0.6)
    assert int(rest) // 131072 > 20480
    assert [f["code"] for f in data["findings"]] == []


def test_llama2_7b_eagle_docs_ci() -> None:
    data = from_log("llama-2-7b-chat", "llama-2-7b-eagle-docs-ci.log")
    m = data["memory"]
    # Llama-2-7B has no GQA: 32 layers x 32 KV heads x (128 + 128) x 2 bytes
    assert m["kv_bytes_per_token"] == 32 * 32 * 256 * 2 == 524288
    # the EAGLE head: one layer of the same geometry over the target's 20480 (+1 padding) tokens
    assert m["draft_kv_bytes"] == (20480 + 1) * 32 * 256 * 2 == 335560704
    assert m["speculative"] == {"algorithm": "EAGLE", "num_draft_tokens": 16, "reserve_bytes": 0}
    assert [(q, r["predicted"], r["logged"], r["ok"], r["line"]) for q, r in rows_of(m).items()] == [
        ("K size GB (#tokens from log)", 5.0, 5.0, True, 12),
        ("V size GB (#tokens from log)", 5.0, 5.0, True, 12),
        ("draft K size GB (#tokens from log)", 0.16, 0.16, True, 19),
        ("draft V size GB (#tokens from log)", 0.16, 0.16, True, 19),
        ("max_total_num_tokens", 20480, 20480, True, 12),
        ("max_running_requests", 200, 200, True, 21),
        ("weights GB (estimate vs Load weight end)", 12.55, 12.66, True, 11),
    ]
    assert data["findings"] == []


def test_llama2_7b_eagle_on_a_shared_ci_gpu_is_flagged() -> None:
    """The same cell nine days later: the docs CI shares its GPUs between notebooks, so this load logged
    30.34 GB for the 12.55 GiB fp16 checkpoint (the next cell logs -4.36 GB for the same model). The pools,
    measured per token, still match exactly; the weights check flags the load, which is what it is for."""
    data = from_log("llama-2-7b-chat", "llama-2-7b-eagle-docs-ci-shared-gpu.log")
    rows = rows_of(data["memory"])
    for name, value in (
        ("K size GB (#tokens from log)", 5.0),
        ("draft K size GB (#tokens from log)", 0.16),
        ("draft V size GB (#tokens from log)", 0.16),
    ):
        assert (rows[name]["predicted"], rows[name]["logged"], rows[name]["ok"]) == (value, value, True)
    weights = rows["weights GB (estimate vs Load weight end)"]
    assert (weights["predicted"], weights["logged"], weights["ok"]) == (12.55, 30.34, False)
    assert [(f["code"], f["message"]) for f in data["findings"]] == [
        ("MM009", "weights GB (estimate vs Load weight end): predicted 12.55, the log says 30.34")
    ]


def test_fixtures_quote_their_launch() -> None:
    for name in (
        "llama-3.1-8b-eagle3-docs-ci.log",
        "llama-2-7b-eagle-docs-ci.log",
        "llama-2-7b-eagle-docs-ci-shared-gpu.log",
    ):
        head = (LOGS / name).read_text().splitlines()[:2]
        assert head[0].startswith(
            "# source: SGLang documentation notebook backend/speculative_decoding.ipynb"
        )
        assert head[1].startswith(
            "# command (cell source): python3 -m sglang.launch_server --model meta-llama/"
        )
