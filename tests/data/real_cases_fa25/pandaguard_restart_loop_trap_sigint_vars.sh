#!/bin/bash
# Reconstructed (not copied) after https://github.com/Caelum2000/panda-guard/blob/ab2749b625d41e00a02a4ff9d765d98f1e83c61e/examples/jailbreak-baselines/vllm_serve.sh, seen 2026-12-04: a `trap "...; exit" SIGINT`, settings in variables, then `while true; do CUDA_VISIBLE_DEVICES=$DEVICE_ID vllm serve $MODEL_NAME ...; sleep 5; done` that restarts the server when it exits (kept: the structure, the flags; the echo texts translated; the API key replaced)

trap "echo 'interrupted, exiting...'; exit" SIGINT

DEVICE_ID=7
PORT=8848
MODEL_NAME="Qwen/Qwen3-8B"
DTYPE="auto"
API_KEY="local-key"

while true; do
    echo "starting vLLM: $MODEL_NAME"
    CUDA_VISIBLE_DEVICES=$DEVICE_ID vllm serve $MODEL_NAME --dtype $DTYPE --port $PORT --api-key $API_KEY

    echo "vLLM exited; restarting in 5 seconds..."
    sleep 5
done
