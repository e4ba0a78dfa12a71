#!/bin/bash
# Reconstructed (not copied) after https://github.com/realtmxi/local-deployment/blob/89efc96c13e14ffb1932a024867255cc7155eaf8/qwen3_coder_30b.sh
# (run by qwen3_coder_30b.service; banner comments and echo lines shortened)

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

MODEL_PATH="/scratch/murphy/models/Qwen3-Coder-30B-A3B-Instruct"
PORT=8003
TP_SIZE=1
REMOTE_SSH_URL="murphy@freeinference.org"
PYTHON_VENV="${SCRIPT_DIR}/.venv"

# Use single GPU
export CUDA_VISIBLE_DEVICES=0

echo "Note: Please ensure GPU power limit is set to 400W"

bash "${SCRIPT_DIR}/service.sh" \
    "$MODEL_PATH" \
    "$PORT" \
    "$TP_SIZE" \
    "$REMOTE_SSH_URL" \
    "$PYTHON_VENV"
