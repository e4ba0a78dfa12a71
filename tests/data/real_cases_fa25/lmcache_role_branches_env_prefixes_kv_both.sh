#!/bin/bash
# Reconstructed (not copied) after https://github.com/tlrmchlsmth/vllm/blob/0020aae42a3b94789de5c6d2386c1512891f38bf/examples/offline_inference/disaggrated-prefill-v1/run_server.sh, seen 2026-12-04: a vLLM fork's disaggregated-prefill example: one required role argument, a producer and a consumer branch each with six `NAME=value \` prefixes before `vllm serve`, an LMCacheConnectorV1 JSON with an empty extra config, commented flags left after the command (kept: the structure, the flags)

if [[ $# -ne 1 ]]; then
    echo "Usage: $0 <role>"
    exit 1
fi

if [[ $1 == "producer" ]]; then
    UCX_TLS=cuda_ipc,cuda_copy,tcp \
        LMCACHE_LOG_LEVEL=DEBUG \
        LMCACHE_CONFIG_FILE=lmcache_prefill_config.yaml \
        LMCACHE_USE_EXPERIMENTAL=True \
        VLLM_ENABLE_V1_MULTIPROCESSING=1 \
        VLLM_WORKER_MULTIPROC_METHOD=spawn \
        CUDA_VISIBLE_DEVICES=0 \
        vllm serve meta-llama/Llama-3.1-8B-Instruct \
        --port 8100 \
        --disable-log-requests \
        --max-num-seqs 160 \
        --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer","kv_connector_extra_config": {}}'

        #--enforce-eager \
        #--max-model-len 8192 \
elif [[ $1 == "consumer" ]]; then
    UCX_TLS=cuda_ipc,cuda_copy,tcp \
        LMCACHE_CONFIG_FILE=lmcache_decode_config.yaml \
        LMCACHE_LOG_LEVEL=DEBUG \
        LMCACHE_USE_EXPERIMENTAL=True \
        VLLM_ENABLE_V1_MULTIPROCESSING=1 \
        VLLM_WORKER_MULTIPROC_METHOD=spawn \
        CUDA_VISIBLE_DEVICES=1 \
        vllm serve meta-llama/Llama-3.1-8B-Instruct \
        --port 8200 \
        --disable-log-requests \
        --max-num-seqs 160 \
        --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer","kv_connector_extra_config": {}}'

        #--enforce-eager \
        #--max-model-len 8192 \
else
    echo "Invalid role: $1"
    exit 1
fi
