#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/15d9f84aed73221858cb4b1bda40a7ecce29af22/examples/online_serving/elastic_ep/serve_deepseek_v2.sh, seen 2026-12-01: the defaults, a shortened `while/case` option parser, the two exports and the `vllm serve` line with every documented flag (--num-redundant-experts included).
HOST="0.0.0.0"
PORT=8006
DATA_PARALLEL_SIZE=4
REDUNDANT_EXPERTS=0
MODEL_NAME="deepseek-ai/DeepSeek-V2-Lite"

while [[ $# -gt 0 ]]; do
    case $1 in
        --dp) DATA_PARALLEL_SIZE="$2"; shift 2 ;;
        --re) REDUNDANT_EXPERTS="$2"; shift 2 ;;
        --model) MODEL_NAME="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 1 ;;
    esac
done

export RAY_DEDUP_LOGS=0
export VLLM_USE_DEEP_GEMM=1

vllm serve "$MODEL_NAME" \
    --data-parallel-size "$DATA_PARALLEL_SIZE" \
    --data-parallel-size-local "$DATA_PARALLEL_SIZE" \
    --data-parallel-backend ray \
    --enforce-eager \
    --enable-expert-parallel \
    --enable-eplb \
    --all2all-backend allgather_reducescatter \
    --num-redundant-experts "$REDUNDANT_EXPERTS" \
    --trust-remote-code \
    --host "$HOST" \
    --port "$PORT"
