#!/bin/bash
# Reconstructed after https://github.com/vllm-project/vllm/issues/22093 (vLLM 0.9.2.dev390, V1 engine): the prefill and decode lines of examples/online_serving/disaggregated_prefill.sh as posted there, with the V0 connector "PyNcclConnector", which the V1 engine's connector factory does not register (the issue asks to move the example to a V1 connector; the V1 example uses P2pNcclConnector).
export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')
MODEL_NAME=${HF_MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct}

# prefilling instance, which is the KV producer
CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL_NAME \
    --port 8100 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}' &

# decoding instance, which is the KV consumer
CUDA_VISIBLE_DEVICES=1 vllm serve $MODEL_NAME \
    --port 8200 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"PyNcclConnector","kv_role":"kv_consumer","kv_rank":1,"kv_parallel_size":2}' &
wait
