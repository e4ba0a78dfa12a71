# https://github.com/vllm-project/recipes/pull/657 (correct: "This command has been tested with VLLM 0.24.0"; a review bot called --async-scheduling invalid; the command as the diff shows it, up to its last visible line)
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
