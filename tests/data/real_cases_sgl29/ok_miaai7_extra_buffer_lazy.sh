# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-27B-SGLang-DGX-Spark/issues/7 (2026-08-20, open), seen 2026-12-05: a correct launch: the pairing the report says start.sh's sizing matches: a Mamba pool of 4 slots per request (64 for 16 requests) with --mamba-radix-cache-strategy extra_buffer_lazy, under which SGLang needs 4 slots per request, so all 16 requests run. Same stand-ins as the failing case.
MODEL_PATH=/models/Qwen3.8-27B-NVFP4
MAX_CONCURRENT_REQUESTS=16
MAMBA_SKIP_DECODE_LOCK=0
MAMBA_CACHE_SIZE=$((MAX_CONCURRENT_REQUESTS * (4 - MAMBA_SKIP_DECODE_LOCK)))
ARGS="--model-path $MODEL_PATH --host 0.0.0.0 --port 30000 --max-running-requests $MAX_CONCURRENT_REQUESTS --max-mamba-cache-size $MAMBA_CACHE_SIZE"
ARGS="$ARGS --speculative-algorithm DFLASH --speculative-draft-model-path /models/Qwen3.8-27B-DFlash"
ARGS="$ARGS --mamba-radix-cache-strategy extra_buffer_lazy"
exec python3 -m sglang.launch_server $ARGS
