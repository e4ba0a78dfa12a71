# Reconstructed (not copied) after https://github.com/Ali-Parandeh/building-generative-ai-services/blob/55018d9b1d4bc18106a3e87c0cfeee64feb38487/examples/ch06/6-7.sh, seen 2026-12-01: the docker run flags, the token variable and --model after the image.
docker run --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    --env "HUGGING_FACE_HUB_TOKEN=<secret>" \
    -p 8080:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model mistralai/Mistral-7B-v0.1
