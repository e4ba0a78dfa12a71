# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/16343, seen 2026-12-02: the docker run of microsoft/phi-4 (14B, bf16) on one RTX 3090 (24 GB) that ends in CUDA out of memory; the log names vLLM 0.8.3; the token is elided in the report.
sudo docker run --runtime nvidia --gpus all \
-v ~/.cache/huggingface:/root/.cache/huggingface \
--env "HUGGING_FACE_HUB_TOKEN=" \
-p 8003:8000 \
--ipc=host \
--name phi4 \
vllm/vllm-openai:latest \
--model  microsoft/phi-4 \
--gpu_memory_utilization=0.80 \
--max_model_len=4096
