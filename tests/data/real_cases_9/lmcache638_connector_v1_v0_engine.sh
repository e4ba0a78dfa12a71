# Reconstructed (not copied) after https://github.com/LMCache/LMCache/issues/638 (2025-05-13, description), seen 2026-12-02: the disaggregated-prefill launch of LMCache's quick start as posted (its UCX_TLS keeps the report's full-width comma); "Unsupported connector type: LMCacheConnectorV1" from the V0 engine (engine.py) of the vLLM in a Dynamo venv: that build predates the V1 connector; the release is not named.
UCX_TLS=cuda_ipc,cuda_copy，tcp \
    LMCACHE_CONFIG_FILE=/home/ubuntu/lmcache-prefiller-config.yaml \
    LMCACHE_USE_EXPERIMENTAL=True \
    CUDA_VISIBLE_DEVICES=0 \
    vllm serve /nfs/checkpoints/modelscope/Qwen3-32B \
    --port 8100 \
    --disable-log-requests \
    --enable-chunked-prefill \
    --gpu-memory-utilization 0.95 \
    --enforce-eager \
    --kv-transfer-config \
    '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer","kv_connector_extra_config": {"discard_partial_chunks": false, "lmcache_rpc_port": "producer1"}}'
