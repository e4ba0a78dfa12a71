# Reconstructed (not copied) after https://github.com/Herdora/chipbenchmark/blob/dc33a8c8d577046bd5b40a219e45ba887a3ed501/benchmarks/Llama-3.1-8B-Instruct/4/H100/BF16/serve.sh, seen 2026-12-04: no shebang, `PORT="${PORT:-8001}"`, one GPU list exported as both CUDA_VISIBLE_DEVICES and HSA_VISIBLE_DEVICES (the harness runs on H100 and MI300X), TP 4, no newline at the end (kept: the structure and the flags)
MODEL="meta-llama/Llama-3.1-8B-Instruct"

TENSOR_PARALLEL_SIZE=4
DTYPE="bfloat16"
PORT="${PORT:-8001}"
GPU_ID="${GPU_ID:-4,5,6,7}"

export VLLM_USE_V1=1
export CUDA_VISIBLE_DEVICES=$GPU_ID
export HSA_VISIBLE_DEVICES=$GPU_ID

echo ">>> Starting vLLM server on GPU $GPU_ID (port $PORT) for model $MODEL"

vllm serve "$MODEL" \
  --tensor-parallel-size "$TENSOR_PARALLEL_SIZE" \
  --port "$PORT" \
  --dtype "$DTYPE" \
  --trust-remote-code