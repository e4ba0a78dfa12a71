# Reconstructed (not copied) after https://github.com/JihyunLee1/panic_demo/blob/2cf4db239c2ff232e461a8b94f34f75b3f4af763/src/run_model_server.sh, seen 2026-12-04: a merged fine-tuned checkpoint by a relative path, float16 weights with an fp8 KV cache on TP 2, a 512-token context (kept: the whole launch)
python -m vllm.entrypoints.openai.api_server \
    --model ./model/checkpoint-5500_merged \
    --served-model-name pacer \
    --host 0.0.0.0 \
    --port 8001 \
    --dtype float16 \
    --tensor-parallel-size 2 \
    --max-model-len 512 \
    --kv-cache-dtype fp8
