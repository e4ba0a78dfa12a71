# Copied from https://github.com/intel/llm-scaler/issues/264 (2026-01-26; seen 2026-12-02): the `vllm serve` command the reporter gives as the correct one for llm-scaler's README (vLLM "0.10.x dev branch", Intel XPU), which the maintainers then added to the README (comment of 2026-02-02). No exact release is named.
HF_TOKEN="<your_api_token>" \
HF_HOME="/llm/models" \
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 \
VLLM_WORKER_MULTIPROC_METHOD=spawn \
vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-7B \
    --served-model-name DeepSeek-R1-Distill-Qwen-7B \
    --dtype=float16 \
    --enforce-eager \
    --port 8001 \
    --host 0.0.0.0 \
    --trust-remote-code \
    --disable-sliding-window \
    --gpu-memory-util=0.9 \
    --no-enable-prefix-caching \
    --max-num-batched-tokens=8192 \
    --disable-log-requests \
    --max-model-len=8192 \
    --block-size 64 \
    --quantization fp8 \
    -tp=1 \
    2>&1 | tee /llm/vllm.log > /proc/1/fd/1 &
