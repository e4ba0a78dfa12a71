#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/878641028be18bb179b5697e426403aba0952bea/benchmark/glm_nvfp4_blog/gb300/server_glm51_v0515_tep4.sh, seen 2026-12-03: set -euo pipefail, `: "${HOST:=localhost}"` defaults, the two exported SGLANG_ switches of the blog's v0.5.15 configuration and the exec'd GLM-5.1 NVFP4 server (tp 4, ep 4, decode CUDA graph size, cutedsl bf16 GEMM, EAGLE).
set -euo pipefail
: "${HOST:=localhost}"
: "${PORT:=8002}"
export SGLANG_OPT_USE_TOPK_V2=1
export SGLANG_ENABLE_MOE_DEFERRED_FINALIZE=1
exec python3 -m sglang.launch_server \
    --model-path nvidia/GLM-5.1-NVFP4 \
    --tensor-parallel-size 4 \
    --ep-size 4 \
    --quantization modelopt_fp4 \
    --context-length 90000 \
    --max-running-requests 16 \
    --max-prefill-tokens 8192 \
    --chunked-prefill-size 8192 \
    --cuda-graph-max-bs-decode 16 \
    --mem-fraction-static 0.87 \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --bf16-gemm-backend cutedsl \
    --reasoning-parser glm45 \
    --tool-call-parser glm47 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 5 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 6 \
    --enable-cache-report \
    --host "${HOST}" \
    --port "${PORT}"
