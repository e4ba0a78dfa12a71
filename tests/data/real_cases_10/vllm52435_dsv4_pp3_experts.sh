# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/52435 (comment of 2026-08-16), seen 2026-12-02: the serve command as posted; "AssertionError: n_physical_experts=256 must be divisible by ep_size=3. Adjust num_redundant_experts.": DeepSeek-V4-Flash has 256 routed experts (its config.json), which 3 ranks cannot split evenly.
vllm serve /app/data/deepseek-v4-flash-0731/model \
  --gpu-memory-utilization 0.875 \
  --kv-cache-dtype fp8 \
  --block-size 256 \
  --pipeline-parallel-size 3 \
  --served-model-name deepseek-v4-flash-0731 \
  --moe-backend deep_gemm_mega_moe \
  --attention-config '{"use_fp4_indexer_cache": true}' \
  --speculative-config '{"method":"dspark","num_speculative_tokens":7,"draft_sample_method":"greedy"}' \
  --reasoning-parser deepseek_v4 \
  --reasoning-config '{"reasoning_parser":"deepseek_v4","reasoning_start_str":"","reasoning_end_str":""}' \
  --tool-call-parser deepseek_v4 \
  --enable-auto-tool-choice \
  --default-chat-template-kwargs '{"temperature": 1.0, "top_p":0.95}' \
  --middleware src.timing_middleware.log_timing_middleware
