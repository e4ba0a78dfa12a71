#!/bin/bash
# Reconstructed after https://github.com/vllm-project/vllm/issues/14952 (2025-03-17, vLLM 0.7.x V0 engine): the launch_disagg_prefill function of the reporter's benchmarks/disagg_benchmarks/disagg_performance_benchmark.sh as posted, a PyNcclConnector producer with --tensor-parallel-size 1 and a consumer with 2; "When I use the same tp, it's normal", with different TP the decode instance hangs (different TP between the instances was not supported: the "Support different tp/pp" item of vllm#6170's roadmap). MODEL_PATH is the reporter's variable; the proxy and wait helper are left out.
model="$MODEL_PATH"
CUDA_VISIBLE_DEVICES=0 python3 \
    -m vllm.entrypoints.openai.api_server \
    --model $model \
    --port 8100 \
    --max-model-len 10000 \
    --tensor-parallel-size 1 \
    --dtype=half \
    --gpu-memory-utilization 0.6 \
    --kv-transfer-config \
    '{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2,"kv_buffer_size":5e9}' &

CUDA_VISIBLE_DEVICES=1,2 python3 \
    -m vllm.entrypoints.openai.api_server \
    --model $model \
    --port 8200 \
    --max-model-len 10000 \
    --tensor-parallel-size 2 \
    --dtype=half \
    --gpu-memory-utilization 0.6 \
    --kv-transfer-config \
    '{"kv_connector":"PyNcclConnector","kv_role":"kv_consumer","kv_rank":1,"kv_parallel_size":2,"kv_buffer_size":5e9}' &
wait
