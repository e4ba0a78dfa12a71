# Reconstructed (not copied) after https://github.com/dagnaputra/nlp/blob/41a5ccc95090be43214ea40c1badbd63629d6a9e/scripts/serve_7b_model.sh, seen 2026-12-04: `docker run -d --runtime nvidia --gpus all` of vllm/vllm-openai:latest with `--max_model_len`, `--api-key` and `--gpu_memory_utilization` (no newline at the end).
docker run -d --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    -p 9898:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model Qwen/Qwen2.5-7B-Instruct --max_model_len 1024 --api-key "test_api_key" --gpu_memory_utilization 0.7