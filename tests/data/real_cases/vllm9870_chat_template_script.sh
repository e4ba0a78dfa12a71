# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/9870, seen 2026-12-02: the script lines the report shows (the port from the first visible GPU, then vllm serve).
gpu_list="${CUDA_VISIBLE_DEVICES:-0}"
IFS=',' read -ra GPULIST <<< "$gpu_list"
port=$((8000 + ${GPULIST[0]}))

vllm serve  llava-hf/llava-1.5-13b-hf  --port $port --chat-template qwen2_vl/scripts/llava_server.sh  --max-model-len 4096
