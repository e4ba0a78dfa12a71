# Reconstructed (not copied) after https://github.com/Mengfanzhe0127/cot_rec/blob/4eebf6d9905f927a032fd47fce216cc23524ddda/cot/script/vllm/Qwen2.5-7B-Instruct.sh, seen 2026-12-04: GPU_ID=$1, its count by `awk -F','`, CUDA_VISIBLE_DEVICES=${GPU_ID} in front of `vllm serve` with `--port "$2"`, and the commented-out flags after it ending in backslashes.
GPU_ID=$1
GPU_COUNT=$(echo "$GPU_ID" | awk -F',' '{print NF}')

model=/media/public/models/huggingface/Qwen/Qwen2.5-7B-Instruct

CUDA_VISIBLE_DEVICES=${GPU_ID} vllm serve ${model} \
  --port "$2" \
  --tensor-parallel-size "${GPU_COUNT}" \
  --swap-space 0 --gpu-memory-utilization 0.95 \
  --disable-log-requests \
  --disable-frontend-multiprocessing --seed 42
#   --disable-custom-all-reduce --enforce-eager \
#   --uvicorn-log-level warning --disable-log-requests
