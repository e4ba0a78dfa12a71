#! /bin/bash
# Reconstructed (not copied) after https://github.com/microsoft/DI-Bench/blob/9d1e4c7148a86e33c8d256a06941f7e9b9b9b8ee/start_server.sh, seen 2026-12-02: keeps `set -ex`, `model=$1`, `port=$2` and the `NCCL_IGNORE_DISABLED_P2P=1 vllm serve $model --port $port ...` launch with its fixed flags
# args: Qwen/Qwen2.5-Coder-7B-Instruct 8123
set -ex
model=$1
port=$2
NCCL_IGNORE_DISABLED_P2P=1 vllm serve $model --port $port --trust-remote-code --gpu-memory-utilization 0.99
