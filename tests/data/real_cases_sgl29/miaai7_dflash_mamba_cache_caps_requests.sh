# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-27B-SGLang-DGX-Spark/issues/7 (2026-08-20, open), seen 2026-12-05: start.sh sizes the Mamba state pool at 4 slots per request (MAX_CONCURRENT_REQUESTS x (4 - MAMBA_SKIP_DECODE_LOCK) = 64) while start-dflash.sh appends --mamba-radix-cache-strategy extra_buffer, under which SGLang needs 5 slots per request, so max_running_requests is silently capped to 12 instead of 16 ("max_running_requests is capped to 12 by the mamba state cache (max_mamba_cache_size=64, 5 state slots per request)"). The two scripts folded into one; the variables' values are the report's .env.sample, the model path and the DFLASH draft flags are stand-ins.
MODEL_PATH=/models/Qwen3.8-27B-NVFP4
MAX_CONCURRENT_REQUESTS=16
MAMBA_SKIP_DECODE_LOCK=0
MAMBA_CACHE_SIZE=$((MAX_CONCURRENT_REQUESTS * (4 - MAMBA_SKIP_DECODE_LOCK)))
ARGS="--model-path $MODEL_PATH --host 0.0.0.0 --port 30000 --max-running-requests $MAX_CONCURRENT_REQUESTS --max-mamba-cache-size $MAMBA_CACHE_SIZE"
ARGS="$ARGS --speculative-algorithm DFLASH --speculative-draft-model-path /models/Qwen3.8-27B-DFlash"
ARGS="$ARGS --mamba-radix-cache-strategy extra_buffer"
exec python3 -m sglang.launch_server $ARGS
