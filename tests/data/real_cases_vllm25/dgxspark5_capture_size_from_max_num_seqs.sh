# Reconstructed (not copied) after https://github.com/tonyd2wild/DeepSeek-v4-Flash-Vision-Exp-DSpark-1M-NVFP4-KV-2x-DGX-Spark/pull/5 (2026-07-06: "--max-cudagraph-capture-size ${MAX_NUM_SEQS:-6} passes a raw sequence count", with num_speculative_tokens=3 the boot log says "Truncating max_cudagraph_capture_size to 4"; the launch's other flags left out)
SPEC_TOKENS=3
vllm serve /models/DeepSeek-V4-Flash \
  --max-num-seqs ${MAX_NUM_SEQS:-6} \
  --max-cudagraph-capture-size ${MAX_NUM_SEQS:-6} \
  --speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":${SPEC_TOKENS}}"
