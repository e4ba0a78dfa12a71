# https://github.com/vllm-project/recipes/pull/657 (tested with vLLM 0.24.0 by the author; a review bot called --async-scheduling "not a valid command-line argument", wrongly)
vllm serve nvidia/Qwen3.6-35B-A3B-NVFP4 \
  --tensor-parallel-size 1 \
  --trust-remote-code \
  --kv-cache-dtype fp8 \
  --attention-backend flashinfer \
  --moe-backend marlin \
  --gpu-memory-utilization 0.92 \
  --max-model-len 262144 \
  --max-num-batched-tokens 8192 \
  --enable-chunked-prefill \
  --async-scheduling
