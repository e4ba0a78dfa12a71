#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/878641028be18bb179b5697e426403aba0952bea/benchmark/glm_nvfp4_blog/b300/server_day0_tp8.sh, seen 2026-12-03: set -euo pipefail, `: "${HOST:=localhost}"` defaults, the `${DAY0_SGLANG:?...}` guard, PYTHONPATH to that checkout and the exec'd server with NVFP4, fp8 KV, EAGLE and the GLM parsers.
set -euo pipefail
: "${HOST:=localhost}"
: "${PORT:=8002}"
: "${DAY0_SGLANG:?set DAY0_SGLANG to a checkout of the day-0 commit}"
DAY0_SGLANG=$(cd "$DAY0_SGLANG" && pwd)
export PYTHONPATH="$DAY0_SGLANG/python"
exec python3 -m sglang.launch_server \
    --model-path nvidia/GLM-5.2-NVFP4 \
    --tensor-parallel-size 8 \
    --quantization modelopt_fp4 \
    --context-length 90000 \
    --max-running-requests 16 \
    --max-prefill-tokens 8192 \
    --chunked-prefill-size 8192 \
    --cuda-graph-max-bs 16 \
    --mem-fraction-static 0.87 \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --reasoning-parser glm45 \
    --tool-call-parser glm47 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 5 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 6 \
    --enable-cache-report \
    --host "${HOST}" \
    --port "${PORT}"
