# https://github.com/vllm-project/vllm/pull/42569 (2026-05-13: the test plan, FlashAttention 4 with an fp8 KV cache; release not named)
vllm serve nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --attention-backend FLASH_ATTN \
  --kv-cache-dtype fp8 \
  --max-model-len 8192
