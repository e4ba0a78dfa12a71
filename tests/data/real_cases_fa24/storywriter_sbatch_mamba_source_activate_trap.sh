#!/bin/bash
# Reconstructed (not copied) after https://github.com/Aditya08Vashisht/AI_Story_Writer/blob/0d6193115e55aa4550760332c8b3c1103e645589/slurm/serve_vllm.sbatch, seen 2026-12-04: nine #SBATCH lines, `set -euo pipefail`, `module load mamba/latest`, `source activate ${VLLM_ENV:-...}`, exports with nested defaults (`${PROJ:-${SLURM_SUBMIT_DIR:-/scratch/$USER/...}}`), `MODEL=${VLLM_MODEL:-Qwen/Qwen3-14B}`, `PORT=${VLLM_PORT:-8000}`, `cd "$PROJ"`, an endpoint file removed by `trap ... EXIT`, then the api_server command.
#SBATCH --job-name=st-vllm
#SBATCH --output=logs/vllm-%j.out
#SBATCH --error=logs/vllm-%j.err
#SBATCH --time=04:00:00
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --gres=gpu:a100:1
#SBATCH --partition=htc
#SBATCH --qos=public
# htc stops at 4 h; a longer server: sbatch --partition=public --time=1-00:00:00 slurm/serve_vllm.sbatch

set -euo pipefail

module load mamba/latest
source activate ${VLLM_ENV:-storytutor-vllm}

export PROJ=${PROJ:-${SLURM_SUBMIT_DIR:-/scratch/$USER/storytutor}}
export HF_HOME=${HF_HOME:-/scratch/$USER/hf_cache}
export TORCH_HOME=${TORCH_HOME:-/scratch/$USER/torch_cache}
export TOKENIZERS_PARALLELISM=false

# Qwen3 models have no -Instruct suffix
MODEL=${VLLM_MODEL:-Qwen/Qwen3-14B}
PORT=${VLLM_PORT:-8000}

cd "$PROJ"
mkdir -p logs

NODE=$(hostname)
echo "host: $NODE model: $MODEL port: $PORT started: $(date)"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

# where this server lives, for clients on other nodes; removed when the job ends
ENDPOINT_FILE="$PROJ/slurm/vllm_endpoint.txt"
trap 'rm -f "$ENDPOINT_FILE"' EXIT
echo "http://${NODE}:${PORT}/v1" > "$ENDPOINT_FILE"
echo "endpoint: $(cat "$ENDPOINT_FILE")"

python -m vllm.entrypoints.openai.api_server \
    --model "$MODEL" \
    --port "$PORT" \
    --host 0.0.0.0 \
    --gpu-memory-utilization 0.85 \
    --max-model-len 8192 \
    --dtype bfloat16
