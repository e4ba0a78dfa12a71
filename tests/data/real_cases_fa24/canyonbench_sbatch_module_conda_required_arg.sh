#!/bin/bash
# Reconstructed (not copied) after https://github.com/ZShamsi987/canyonbench/blob/ad0e909ce5f50d018524928c7008a89bc6032ac2/slurm/serve_vllm.sbatch, seen 2026-12-04: seven #SBATCH lines, `set -euo pipefail`, `module purge`/`module load`, `conda activate`, `MODEL_ID="${1:?usage: ...}"`, `PORT="${VLLM_PORT:-8000}"`, one api_server line, a trailing blank line.
#SBATCH --job-name=canyonbench-vllm
#SBATCH --gres=gpu:1
#SBATCH --time=04:00:00
#SBATCH --mem=64G
#SBATCH --cpus-per-task=8
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err

set -euo pipefail

module purge
module load anaconda3/2024.6
conda activate canyonbench

MODEL_ID="${1:?usage: sbatch slurm/serve_vllm.sbatch MODEL_ID}"
PORT="${VLLM_PORT:-8000}"
mkdir -p logs
python -m vllm.entrypoints.openai.api_server --model "$MODEL_ID" --port "$PORT"

