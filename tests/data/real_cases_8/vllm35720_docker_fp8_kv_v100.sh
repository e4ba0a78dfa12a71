# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/35720 (2026-03-02, description, "Before"), seen 2026-12-02: the docker run; on a V100 (compute capability 7.0, not in the command) --kv-cache-dtype fp8 crashes 0.16.0 (the PR's fix: FP8 KV cache on sm<89).
sudo docker run \
    -i -t --rm \
    -v ~/.cache:/root/.cache \
    --gpus=all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 \
    -p 8000:8000 \
    vllm/vllm-openai:v0.16.0 \
    --model unsloth/Meta-Llama-3.1-8B-Instruct \
    --max-model-len 4096 \
    --kv-cache-dtype fp8
