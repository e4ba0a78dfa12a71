# Reconstructed (not copied) after https://github.com/beowulfworker-commits/ai_starter/blob/a8f2223074f7ceaa512849b408f0039bb4dfc8f4/scripts/02_run_vllm.sh
# A local starter under WSL: a venv, the project's .env exported with `set -a; . ./.env`, then a GPTQ Qwen2.5
# served in the background with nohup; kept as written (the .env is not part of the reconstruction).
set -euo pipefail
cd /mnt/c/local-ai-starter
source ~/.venvs/localai/bin/activate

set -a
. ./.env
set +a

export HF_HUB_ENABLE_HF_TRANSFER=1
if [ -n "${HF_TOKEN:-}" ]; then
  export HUGGING_FACE_HUB_TOKEN="$HF_TOKEN"
fi

pkill -f "vllm serve" || true

nohup vllm serve "${MODEL_ID:-Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4}" \
  --host 0.0.0.0 \
  --port 8000 \
  --download-dir /mnt/c/local-ai-starter/models \
  --max-model-len "${CONTEXT_LEN:-32768}" \
  --gpu-memory-utilization "${GPU_MEM_UTIL:-0.90}" \
  --quantization gptq \
  --dtype auto \
  > /mnt/c/local-ai-starter/logs/vllm.log 2>&1 &
echo $! > /mnt/c/local-ai-starter/logs/vllm.pid
echo "vLLM started"
