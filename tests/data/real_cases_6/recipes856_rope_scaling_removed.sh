# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/856 (2026-08-27, description), seen 2026-12-02: the Qwen3.8-Flash-Next YaRN recipe before the fix; "--rope-scaling was removed in vLLM 0.11.1 ... the YaRN command crashes on boot on any vLLM >= 0.11.1"; fix: --hf-overrides.
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 \
vllm serve Qwen/Qwen3.8-Flash-Next-FP8 \
  --tensor-parallel-size 4 \
  --rope-scaling '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":262144}' \
  --max-model-len 1000000
