#!/bin/bash
# Reconstructed (not copied) after https://github.com/ylXuu/Search-Gen-V/blob/770f60db76567f0c8f4860e2e13e067209312b0f/rubric_construction/qwen3-235b.sh, seen 2026-12-04: the FP8 Qwen3-235B server (tp 8, ep 8, reasoning and tool-call parsers), its last flag without a backslash and an indented commented-out flag after it ending in a backslash.

MODEL_PATH="Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
python -m sglang.launch_server \
    --model-path ${MODEL_PATH} \
    --tp-size 8 \
    --ep-size 8 \
    --max-running-requests 160 \
    --cuda-graph-max-bs 160 \
    --reasoning-parser qwen3 \
    --tool-call-parser qwen25 \
    --trust-remote-code \
    --host 0.0.0.0 \
    --port 30000
    # --mem-fraction-static 0.8 \
