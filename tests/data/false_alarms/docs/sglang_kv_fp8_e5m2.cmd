# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/03cd2ec4af85b66be8ef025238bc73c165416bdb/docs/advanced_features/quantized_kv_cache.md (Enabling Quantized KV Cache, FP8 E5M2), seen 2026-12-02: the environment assignments and the server flags with their values, re-typed as one command line.
# release: sglang 0.5.20 (no bundled release accepts every command of the page (its --int8-kv-cache is accepted by none): the newest bundled release that accepts all the others)
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 --kv-cache-dtype fp8_e5m2
