# https://github.com/vllm-project/vllm/issues/6689 (comment of 2024-07-25, vLLM 0.5.3.post1 from its log; the container's args list: "ValueError: Unknown RoPE scaling type extended")
python3 -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3.1-8B --rope-scaling '{"type": "extended", "factor": 8.0}' --gpu-memory-utilization 0.95 --enforce-eager --dtype=half
