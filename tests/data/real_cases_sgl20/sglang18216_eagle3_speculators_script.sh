# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/18216 (2026-02), seen 2026-12-03: "SGLang cannot load RedHatAI/Qwen3-235B-A22B-Thinking-2507-speculator.eagle3 draft model": the draft is in the speculators format, whose config.json SGLang does not read. The reporter's script as posted (the API key replaced by xxx in the report itself).
model_name="Qwen3-235B-A22B-Thinking-2507"
log_file="./logs/sglang-$(echo "$model_name" | tr '[:upper:]' '[:lower:]')-spec-decode.log"

# Ensure log directory exists
mkdir -p "$(dirname "$log_file")"

# Detect number of GPUs
gpu_count=$(nvidia-smi -L | wc -l)

nohup python -m sglang.launch_server \
    --model-path ./$model_name \
    --served-model-name $model_name \
    --api-key xxx \
    --host 0.0.0.0 \
    --port ${SERVICE_PORT} \
    --context-length 131072 \
    --max-running-requests 64 \
    --tp-size $gpu_count \
    --mem-fraction-static 0.9 \
    --chunked-prefill-size 4096 \
    --stream-interval 10 \
    --reasoning-parser qwen3 \
    --speculative-algorithm EAGLE3 \
    --speculative-draft-model-path ./Qwen3-235B-A22B-Thinking-2507-Speculator-Eagle3 \
    --speculative-num-steps 5 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 6 \
    --log-requests \
    --log-requests-level 1 \
    --log-level info \
    --decode-log-interval 1000 \
    --show-time-cost \
    > $log_file 2>&1 &

tail -f $log_file
