# https://github.com/vllm-project/vllm/issues/46459 (vLLM 0.22.1, image vllm/vllm-openai:latest-ubuntu2404):
# "ValueError: MiniCPMV4_6ForConditionalGeneration does not support LoRA yet." at start-up.
docker run --gpus all \
  -p 8000:8000 \
  -v /path/to/checkpoint-160:/lora_adapters/leaflet_grouping_lora:ro \
  vllm/vllm-openai:latest-ubuntu2404 \
  openbmb/MiniCPM-V-4.6 \
  --trust-remote-code \
  --dtype float16 \
  --gpu-memory-utilization 0.80 \
  --max-model-len 2048 \
  --max-num-seqs 1 \
  --limit-mm-per-prompt '{"image":1}' \
  --enforce-eager \
  --disable-log-stats \
  --enable-lora \
  --max-lora-rank 16 \
  --max-loras 1 \
  --lora-modules leaflet_grouping_lora=/lora_adapters/leaflet_grouping_lora
