# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/13451 (seen 2026-12-02: the docs' docker run line; "No supported config format found" came from the Hub, not the launch)
docker run --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    --env "HUGGING_FACE_HUB_TOKEN=<secret>" \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model mistralai/Mistral-7B-v0.1
