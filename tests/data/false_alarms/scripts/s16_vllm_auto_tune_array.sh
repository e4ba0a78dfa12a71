#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/01277f9cd6f7c69ad383babc745bc5a04e5da2b5/benchmarks/auto_tune/auto_tune.sh, seen 2026-12-03: the settings, start_server with its local arguments array, the VLLM_USE_V1/VLLM_SERVER_DEV_MODE prefixes on both branches, the health loop and the gpu-memory search that calls it.
MODEL="meta-llama/Llama-3.1-8B-Instruct"
TP=1
DOWNLOAD_DIR=""
MAX_MODEL_LEN=4096
NUM_SEQS_LIST="128 256"
NUM_BATCHED_TOKENS_LIST="512 1024 2048 4096"
LOG_FOLDER="./auto-benchmark/$(date +%Y_%m_%d_%H_%M)"
mkdir -p "$LOG_FOLDER"

start_server() {
    local gpu_memory_utilization=$1
    local max_num_seqs=$2
    local max_num_batched_tokens=$3
    local vllm_log=$4
    local profile_dir=$5
    pkill -if vllm
    local common_args_array=(
        "$MODEL"
        "--disable-log-requests"
        "--port" "8004"
        "--gpu-memory-utilization" "$gpu_memory_utilization"
        "--max-num-seqs" "$max_num_seqs"
        "--max-num-batched-tokens" "$max_num_batched_tokens"
        "--tensor-parallel-size" "$TP"
        "--enable-prefix-caching"
        "--load-format" "dummy"
        "--download-dir" "$DOWNLOAD_DIR"
        "--max-model-len" "$MAX_MODEL_LEN"
    )
    if [[ -n "$profile_dir" ]]; then
        VLLM_USE_V1=1 VLLM_SERVER_DEV_MODE=1 VLLM_TORCH_PROFILER_DIR=$profile_dir \
            vllm serve "${common_args_array[@]}" > "$vllm_log" 2>&1 &
    else
        VLLM_USE_V1=1 VLLM_SERVER_DEV_MODE=1 \
            vllm serve "${common_args_array[@]}" > "$vllm_log" 2>&1 &
    fi
    local server_pid=$!
    server_started=0
    for i in {1..60}; do
        kill -0 $server_pid 2> /dev/null || break
        STATUS_CODE=$(curl -s -o /dev/null -w "%{http_code}" "http://0.0.0.0:8004/health")
        if [[ "$STATUS_CODE" -eq 200 ]]; then
            server_started=1
            break
        fi
        sleep 10
    done
    if (( ! server_started )); then
        return 1
    fi
    return 0
}

read -r -a num_seqs_list <<< "$NUM_SEQS_LIST"
read -r -a num_batched_tokens_list <<< "$NUM_BATCHED_TOKENS_LIST"
gpu_memory_utilization=0.98
while (( $(echo "$gpu_memory_utilization >= 0.9" | bc -l) )); do
    if start_server $gpu_memory_utilization "${num_seqs_list[-1]}" "${num_batched_tokens_list[-1]}" "$LOG_FOLDER/vllm_gmu.log" ""; then
        break
    fi
    gpu_memory_utilization=$(echo "$gpu_memory_utilization - 0.01" | bc)
done
pkill -if vllm
