# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/23272 (2026-04-20), seen 2026-12-03: PD disaggregation behind the SGLang router with the Mooncake transfer backend on L40S: KV transfers start failing after some time under about 4 requests/s; the reporter's resolution is --disaggregation-transfer-backend nixl (a Mooncake transfer problem under load, not a setting). The router runs on another machine (not in this script); the model is the report's $MODEL_ID.
MODEL_ID=${MODEL_ID:-Qwen/Qwen3-8B}
python -m sglang.launch_server \
            --model-path $MODEL_ID \
            --disaggregation-mode prefill \
            --disaggregation-transfer-backend mooncake \
            --host 0.0.0.0 \
            --port 8000
