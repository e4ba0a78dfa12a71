# Reconstructed (not copied) after https://github.com/adibaral/lmcache-experiments/blob/1e35a51f1c74347208a5c91eb802e4cb8ae1fcd5/serve_cpu_offloading.sh, seen 2026-12-01: the LMCACHE_CONFIG_FILE prefix and the server flags, with the connector JSON spread over lines inside single quotes.
LMCACHE_CONFIG_FILE=lmcache_config.yaml \
vllm serve meta-llama/Llama-3.1-8B-Instruct \
    --quantization bitsandbytes \
    --max-model-len 8192 \
    --gpu-memory-utilization 0.9 \
    --kv-transfer-config \
    '{"kv_connector":"LMCacheConnectorV1",
      "kv_role":"kv_both"
    }'
