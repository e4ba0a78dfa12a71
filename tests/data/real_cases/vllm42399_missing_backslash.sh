# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/42399, seen 2026-12-01: the script's server command and what it sets before it.
docker run -d --ipc host \
    -p "8000:8000" \
    "vllm/vllm-openai:v0.20.1" \
    "cyankiwi/Qwen3.6-35B-A3B-AWQ-4bit" \
    --dtype auto \
    --max-model-len "${VLLM_MAX_MODEL_LEN:-20480}" \
    --gpu-memory-utilization "${VLLM_GPU_MEM_UTIL:-0.95}" \
    --reasoning-parser qwen3 \
    --reasoning-config '{"reasoning_start_str":"<think>","reasoning_end_str": " -- Reasoning preempted. Answer now. </think>"}'
    --enable-prefix-caching \
    --enable-chunked-prefill \
    --trust-remote-code \
    --language-model-only
