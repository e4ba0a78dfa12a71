# https://github.com/vllm-project/vllm/pull/25904 (2025-09-29: the test plan, which starts after the fix; the all2all backend by its variable; release not named)
VLLM_ALL2ALL_BACKEND=deepep_low_latency \
VLLM_ATTENTION_BACKEND=FLASH_ATTN_MLA \
vllm serve deepseek-ai/DeepSeek-R1 \
    --tensor-parallel-size 1 \
    --enable-expert-parallel \
    --data-parallel-size 8 \
    --trust-remote-code \
    --host 0.0.0.0 \
    --port 8000 \
    --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'
