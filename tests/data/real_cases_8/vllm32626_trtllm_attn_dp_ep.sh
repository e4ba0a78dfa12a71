# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/32626 (2026-01-20, description by a maintainer), seen 2026-12-02: the justfile recipe as a script (its `:=` variables become shell variables, `{{X}}` becomes "$X"; `chg run --gpus N --` is the author's GPU-reservation wrapper); the TRTLLM attention path fails with DP+EP: a bug, not the flags.
MODEL="nvidia/Qwen3-30B-A3B-NVFP4"
GPUS="2"
PORT="8001"
VLLM_USE_FLASHINFER_MOE_FP4=1 VLLM_FLASHINFER_MOE_BACKEND=masked_gemm chg run --gpus "$GPUS" -- vllm serve "$MODEL" -dp "$GPUS" --enable-expert-parallel --port "$PORT" --all2all-backend deepep_low_latency
