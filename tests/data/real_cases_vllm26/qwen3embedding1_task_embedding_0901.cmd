# https://github.com/QwenLM/Qwen3-Embedding/issues/1 (comment of 2025-06-06) -- vllm 0.9.0.1: Qwen3-Embedding-0.6B with --task embedding still fails "There is no module or parameter named 'embed_tokens'": a vLLM bug of 0.9.0.x fixed after https://github.com/vllm-project/vllm/issues/19250 (GPUStack's answer in https://github.com/gpustack/gpustack/issues/2170), not a setting of the command.
vllm serve \
    /data/soft/public/Qwen3-Embedding-0.6B/ \
    --served-model-name qwen3-embedding \
    --trust-remote-code \
    --host 127.0.0.1 \
    --port 6911 \
    --api-key testtesst \
    --gpu_memory_utilization 0.5 \
    --task embedding
