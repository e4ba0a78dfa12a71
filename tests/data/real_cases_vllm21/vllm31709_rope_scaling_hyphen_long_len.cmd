# https://github.com/vllm-project/vllm/issues/31709 (vLLM 0.11.2, 2026-01-05: "After upgrade to 0.11.2, vllm crashs with Qwen3": the engine dies on a long request with "Assertion `index out of bounds: 0 <= tmp48 < 40960` failed"; --hf-overrides spells the key rope-scaling, and VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets 87040 pass the model's 40960)
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 uv run vllm serve \
        Qwen/Qwen3-32B-FP8 \
        --host 0.0.0.0 --port $port --seed 42 --trust-remote-code \
        --enable-chunked-prefill --enable-prefix-caching \
        --enable-prompt-tokens-details \
        --reasoning-parser deepseek_r1 \
        --gpu-memory-utilization 0.97 \
        --max_num_seqs 100 \
        --enable-auto-tool-choice --tool-call-parser hermes \
        --hf-overrides '{"rope-scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn"}}' \
        -O3 \
        --quantization fp8 \
        --tensor-parallel-size 1 --max-model-len 87040
