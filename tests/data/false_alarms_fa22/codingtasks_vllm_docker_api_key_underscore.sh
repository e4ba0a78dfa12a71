# Reconstructed (not copied) after https://github.com/D-Hank/coding-tasks/blob/17a9eb5bb8330bfc399ba4524c8f7b4bfd03a3d4/src/run.sh, seen 2026-12-04: `docker run --runtime nvidia --gpus all` with `--env "HF_HUB_OFFLINE=1"`, vllm/vllm-openai:latest, `--max_model_len` and `--api_key "EMPTY"`.
docker run --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    --env "HF_HUB_OFFLINE=1" \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model Qwen/Qwen2.5-Coder-0.5B-Instruct \
    --max_model_len 1024 \
    --api_key "EMPTY"
