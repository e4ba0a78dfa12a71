#!/bin/bash
# Reconstructed (not copied) after https://github.com/mlcommons/inference/blob/492847a412312ea4538425961f91ec49f22c3fcc/language/gpt-oss/infer-sglang/run_server.sh, seen 2026-12-02: keeps the `while [[ $# -gt 0 ]]; case $1` loop that knows only --dp (no `*)` branch) and the server command with `--data-parallel-size=$dp`
# args: --dp 4

dp=1
while [[ $# -gt 0 ]]; do
    case $1 in
        --dp) dp=$2; shift 2 ;;
    esac
done

set -x
python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --host 0.0.0.0 --port 30000 \
    --tp-size=1 --data-parallel-size=$dp --max-running-requests 256 --mem-fraction-static 0.85 \
    --chunked-prefill-size 16384 --ep-size=1 --quantization mxfp4 --stream-interval 50
