#!/bin/bash
# Reconstructed (not copied) after https://github.com/realtmxi/local-deployment/blob/aeff2ba4d5467ec706f1bee27ce9d7f6aca3c232/production_scripts/start_sglang.sh: the script as posted (three positional arguments, a venv's python by absolute path)

# Start the sgLang server

if [ "$#" -ne 3 ]; then
    echo "Usage: $0 <port> <tp_size>"
    echo "The script will start the sgLang server on the specified port with the given tensor parallel size."
    exit 1
fi

MODEL_PATH=$1
PORT=$2
TP_SIZE=$3

/n/juncheng_lab/Lab/llm-workload/.venv/bin/python3 -m sglang.launch_server \
    --model-path "$MODEL_PATH" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP_SIZE" \
    --enable-metrics
