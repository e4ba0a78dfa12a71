# https://github.com/vllm-project/vllm/issues/14376 (2025-03-06, vllm/vllm-openai:latest on an L40S 48 GB: the second identical server on the same GPU refuses with 0.2 ("No available memory for the cache blocks"), starts with 0.3, the V1 engine counting the first server's memory against the second's fraction)
docker run \
--runtime nvidia \
-e VLLM_USE_V1=1 \
--gpus 0 \
--ipc=host \
-v "${HF_HOME}:/root/.cache/huggingface" \
vllm/vllm-openai:latest \
--model TinyLlama/TinyLlama-1.1B-Chat-v1.0 \
--max-model-len 1024 \
--gpu-memory-utilization 0.2
