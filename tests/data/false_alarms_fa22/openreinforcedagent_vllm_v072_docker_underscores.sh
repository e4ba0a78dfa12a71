# Reconstructed (not copied) after https://github.com/zeuscsc/OpenReinforcedAgent/blob/3041e64a650ea9b051a746b07c9dae77943a5109/start_vllm.sh, seen 2026-12-04: `docker run -it --name ... --rm --gpus='"device=0"'` with ulimits, `-v $(pwd):/workspace`, NCCL variables, the vllm/vllm-openai:v0.7.2 image, bitsandbytes quantization and `--max_model_len` (no newline at the end). Release: vllm 0.7.2 (the image tag).
docker run -it --name vllm-server-0 --rm --gpus='"device=0"' --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 \
                 -v $(pwd):/workspace -p 8000:8000 \
                 -e NCCL_P2P_DISABLE=1 -e NCCL_SHM_DISABLE=1 \
                 vllm/vllm-openai:v0.7.2 \
                 --model /workspace/vllm-models/vllm-0 \
                 --tool-call-parser hermes \
                 --enable-auto-tool-choice \
                 --quantization bitsandbytes \
                 --load-format bitsandbytes \
                 --gpu-memory-utilization 0.8 \
                 --port 8000 \
                 --max_model_len 8192