# source: https://github.com/vllm-project/vllm/issues/14376 (2025-03-06) "[Bug]: Engine V1 When loading two models into the same GPU the second model requires more memory allocation than the first"
# GPU: one L40S 48 GB (VM). Release: vllm/vllm-openai:latest of March 2025 with VLLM_USE_V1=1. The second identical container at 0.2 fails:
# "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`"; 0.2 + 0.3 works, 0.3 + 0.3 does not.
# Model config: models/tinyllama-1.1b-chat (TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json as public code quotes it).
# The report posts the command once and runs it twice, both at once; here the first is backgrounded (`&`) so the two run together.
docker run --runtime nvidia -e VLLM_USE_V1=1 --gpus 0 --ipc=host -v "${HF_HOME}:/root/.cache/huggingface" vllm/vllm-openai:latest --model TinyLlama/TinyLlama-1.1B-Chat-v1.0 --max-model-len 1024 --gpu-memory-utilization 0.2 &
docker run --runtime nvidia -e VLLM_USE_V1=1 --gpus 0 --ipc=host -v "${HF_HOME}:/root/.cache/huggingface" vllm/vllm-openai:latest --model TinyLlama/TinyLlama-1.1B-Chat-v1.0 --max-model-len 1024 --gpu-memory-utilization 0.2
