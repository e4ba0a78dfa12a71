# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/15591 (2025-12-22), seen 2026-12-03: a correct launch: Qwen3-Next-80B with NEXTN under spec v2, TP 4, the JSON of --model-loader-extra-config escaped inside double quotes (the PR's benchmark ran on it).
CUDA_VISIBLE_DEVICES=4,5,6,7 SGLANG_ENABLE_JIT_DEEPGEMM=0 SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server \
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --speculative-algorithm NEXTN \
  --tp 4 \
  --model-loader-extra-config "{\"enable_multithread_load\": true, \"num_threads\": 8}"
