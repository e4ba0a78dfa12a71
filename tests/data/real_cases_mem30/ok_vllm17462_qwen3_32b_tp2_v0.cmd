# source: https://github.com/vllm-project/vllm/issues/17462 (2025-04-30): the same launch on the V0 engine, "V0 no problem" (title).
# GPU: 2x L20. Release: vLLM 0.8.5. Model config: models/qwen3-32b.
VLLM_USE_V1=0 vllm serve Qwen3-32B --tensor-parallel-size 2
