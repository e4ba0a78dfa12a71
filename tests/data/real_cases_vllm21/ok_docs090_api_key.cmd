# https://docs.vllm.ai/en/v0.9.0/serving/openai_compatible_server.html (the first command of vLLM 0.9.0's OpenAI-compatible server page)
vllm serve NousResearch/Meta-Llama-3-8B-Instruct \
  --dtype auto \
  --api-key token-abc123
