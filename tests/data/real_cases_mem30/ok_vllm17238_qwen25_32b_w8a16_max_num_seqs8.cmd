# source: https://github.com/vllm-project/vllm/issues/17238 (2025-04-27): the reporter's working launch after the answer
# ("I set the parameter `max_num_seqs` = 4 or 8 ... the model can be started normally now"). GPU: 2x RTX 3090. Release: vLLM 0.8.1.
# Model config: models/qwen2.5-32b-instruct-int8-w8a16.
vllm serve Qwen2.5-32B-Instruct-INT8-W8A16 --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --max-model-len 4096 --enforce-eager --max-num-seqs 8
