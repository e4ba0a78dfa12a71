# Copied from https://github.com/Avarok-Cybersecurity/dgx-vllm/issues/16 (2026-05-21; seen 2026-12-03): HF_HUB_OFFLINE=1 with the model given as a repo id, the cache mounted from /root/.cache/huggingface of a host where the user is `chen`; the container stops with huggingface_hub.errors (the model is not in that cache). The image's entrypoint builds `vllm serve $MODEL ...` from the variables (its log line: "Command: vllm serve openai/gpt-oss-120b --host 0.0.0.0 --port 8888 ...").
docker run -d --name vllm-nvfp4 \
  --network host --gpus all --ipc=host \
  -v /root/.cache/huggingface:/root/.cache/huggingface \
  -e HF_HUB_OFFLINE=1 \
  -e VLLM_USE_FLASHINFER_MOE_FP4=0 \
  -e VLLM_TEST_FORCE_FP8_MARLIN=1 \
  -e VLLM_NVFP4_GEMM_BACKEND=marlin \
  -e PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
  -e MODEL=openai/gpt-oss-120b \
  -e PORT=8888 \
  -e GPU_MEMORY_UTIL=0.80 \
  -e MAX_MODEL_LEN=4096 \
  -e MAX_NUM_SEQS=8 \
  -e VLLM_EXTRA_ARGS="--attention-backend flashinfer --kv-cache-dtype fp8" \
  avarok/dgx-vllm-nvfp4-kernel:v22 serve
