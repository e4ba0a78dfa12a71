#!/bin/bash
# Reconstructed (not copied) after https://github.com/mlcommons/inference/blob/24ef1e0aba5319b9385929b96a088e42c641a3f5/language/gpt-oss/run_server.sh, seen 2026-12-02: keeps the `while [[ $# -gt 0 ]]; case $1` loop over --dp/--model_path/--eagle_path with `shift 2` and an exiting `*)`, the flags gathered in one string, the EAGLE3 flags added when --eagle_path is given, and the unquoted `$args` launch
# args: --dp 2 --model_path /models/gpt-oss-120b --eagle_path /models/gpt-oss-120b-eagle3

dp=1
model_path=openai/gpt-oss-120b
eagle_path=""

while [[ $# -gt 0 ]]; do
    case $1 in
        --dp) dp=$2; shift 2 ;;
        --model_path) model_path=$2; shift 2 ;;
        --eagle_path) eagle_path=$2; shift 2 ;;
        *) echo "unknown: $1"; exit 1 ;;
    esac
done

args=" --model-path $model_path --host 0.0.0.0 --port 30000 --tp-size=1
    --data-parallel-size=$dp --max-running-requests $((dp * 512))
    --mem-fraction-static 0.85 --chunked-prefill-size 16384 --ep-size=1 --stream-interval 500 "
if [ -n "$eagle_path" ]; then
    args="$args --speculative-draft-model-path $eagle_path --speculative-algorithm EAGLE3"
fi

set -x
python3 -m sglang.launch_server $args
