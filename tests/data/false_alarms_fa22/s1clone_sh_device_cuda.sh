#!/bin/sh
# Reconstructed (not copied) after https://github.com/limJhyeok/s1-clone/blob/036d15a3c1cde6767e1892df5a8b61502340b6fa/scripts/vllm_deepseek.sh, seen 2026-12-04: `#!/bin/sh`, `set -x`, and `vllm serve` of DeepSeek-R1-Distill-Qwen-7B with `--device cuda`, a seed and one sequence.
set -x

vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-7B \
  --device cuda \
  --dtype auto \
  --seed 42 \
  --max-model-len 16384 \
  --gpu-memory-utilization 0.9 \
  --max-num-seqs 1 \
  --disable-log-stats \
  --port 8000
