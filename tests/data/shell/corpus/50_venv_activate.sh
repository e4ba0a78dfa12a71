#!/bin/bash
# A virtualenv activated by sourcing its activate script, then vllm serve.
source env/venv/bin/activate
export VLLM_API_KEY=local-key
vllm serve /models/qwen3 \
    --host 0.0.0.0 \
    --port 8000 \
    --api-key "$VLLM_API_KEY" \
    2>&1 | tee vllm_basic.log
