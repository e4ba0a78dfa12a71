#!/bin/bash
# Reconstructed (not copied) after https://github.com/itzarjuna1/Self-API-/blob/59d175f513c360b82757a3a93f47379169b9db28/scripts/start_vllm.sh, seen 2026-12-04: `MODEL=${1:-"..."}` and `PORT=${2:-8000}`, then the quoted api_server command.

MODEL=${1:-"meta-llama/Meta-Llama-3-8B-Instruct"}
PORT=${2:-8000}

python -m vllm.entrypoints.openai.api_server \
    --model "$MODEL" \
    --port "$PORT"
