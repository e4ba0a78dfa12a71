# Reconstructed (not copied) after https://github.com/awslabs/LISA/pull/758: the entrypoint's launch with VLLM_ASYNC_SCHEDULING=true, which adds --async-scheduling (recommended for gpt-oss-20b on A10G)
vllm serve openai/gpt-oss-20b --max-model-len 32768 --gpu-memory-utilization 0.9 --async-scheduling
