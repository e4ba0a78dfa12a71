"""state.py against SGLang 0.5.10.post1's own ``mamba2_cache_params`` (needs the resolver environment)."""

from __future__ import annotations

import pytest

from argtrace.layers.memory.config import load_config, read_model_spec
from argtrace.layers.memory.state import mamba_geometry
from tests.conftest import REPO
from tests.needs import unmet

MODELS = REPO / "tests" / "data" / "models"

pytestmark = [pytest.mark.frameworks, pytest.mark.slow]


@pytest.mark.parametrize("model", ["qwen3.5-9b", "qwen3.6-27b", "qwen3-next-80b-a3b", "nemotron-h-8b"])
def test_state_bytes_match_sglang(model: str) -> None:
    if unmet(["resolver:sglang==0.5.10.post1"]):
        pytest.skip("no SGLang 0.5.10.post1 resolver environment")
    from argtrace.layers.memory.framework_probe import probe_state

    tps = [1, 2, 4, 8]
    results = probe_state(MODELS / model / "config.json", tps)
    if results is None:
        pytest.skip("no SGLang 0.5.10.post1 resolver environment")
    assert "error" not in results[0], results
    spec = read_model_spec(load_config(MODELS / model))
    for got in results:
        mine = mamba_geometry(spec, got["tp"])
        assert mine is not None
        assert (mine.conv_bytes_per_slot, mine.ssm_bytes_per_slot) == (got["conv"], got["ssm"]), (model, got)
        assert spec.full_attention_layer_ids == got["full_attention_layer_ids"]
