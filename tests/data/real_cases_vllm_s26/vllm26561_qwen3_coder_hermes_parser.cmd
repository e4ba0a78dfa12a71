# https://github.com/vllm-project/vllm/issues/26561
vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct \
    --served-model-name qwen3-coder \
    --tensor-parallel-size 1 \
    --gpu-memory-utilization 0.9 \
    --max-model-len 65536 \
    --enable-auto-tool-choice \
    --tool-call-parser hermes
