# Reconstructed (not copied) after https://github.com/tonyd2wild/DeepSeek-v4-Flash-Vision-Exp-DSpark-1M-NVFP4-KV-2x-DGX-Spark/pull/5 (2026-07-06: the fix passes the widest uniform decode batch in tokens, max_num_seqs * (1 + num_speculative_tokens), 6 * 4 = 24, a size on vLLM's capture grid)
SPEC_TOKENS=3
MAX_NUM_SEQS=6
vllm serve /models/DeepSeek-V4-Flash \
  --max-num-seqs ${MAX_NUM_SEQS} \
  --max-cudagraph-capture-size $(( MAX_NUM_SEQS * (1 + SPEC_TOKENS) )) \
  --speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":${SPEC_TOKENS}}"
