#!/bin/bash
# env: VLLM_LOGGING_LEVEL=DEBUG
python -m vllm.entrypoints.openai.api_server --model /models/qwen2.5-7b --served-model-name qwen \
  --host 0.0.0.0 --port 8000 --dtype bfloat16 --api-key sk-test-123
