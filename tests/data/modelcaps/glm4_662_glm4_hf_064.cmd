# https://github.com/zai-org/GLM-4/issues/662 (vLLM 0.6.1/0.6.3/0.6.4: "ValueError: Model architectures
# ['GlmForCausalLM'] are not supported for now"; the maintainers: vLLM had just added GlmForCausalLM). The start command as posted.
vllm serve ./glm-4-9b-chat-hf --served-model-name glm-4-9b-chat --dtype auto --tensor-parallel-size 1 --max-model-len 8192 --gpu-memory-utilization 0.95 --host 0.0.0.0 --port 8000 --trust-remote-code
