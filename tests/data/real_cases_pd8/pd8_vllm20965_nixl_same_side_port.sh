#!/bin/bash
# Reconstructed after https://github.com/vllm-project/vllm/issues/20965 (vLLM 0.9.2 era, "1p1d test with v1 and nixl in one container"): the prefill and decode api_server starts as posted (run from two terminals of one container; `&` here), both NixlConnector, neither sets VLLM_NIXL_SIDE_CHANNEL_PORT, so both handshake listeners bind the default port: "zmq.error.ZMQError: Address already in use (addr='tcp://localhost:5557')". vLLM's NixlConnector guide: each instance on a host needs its own VLLM_NIXL_SIDE_CHANNEL_PORT.
VLLM_USE_V1=1 \
CUDA_VISIBLE_DEVICES=0 \
python -m vllm.entrypoints.openai.api_server \
--host 0.0.0.0 --port 8888 \
--model /stores/framework-test/models/llm/LLM-Research/Meta-Llama-3.1-8B-Instruct \
--gpu-memory-utilization 0.8 \
--trust-remote-code \
--dtype bfloat16 \
--tensor-parallel-size 1 \
--pipeline-parallel-size 1 \
--max-model-len 2048 \
--max-num-seqs 256 \
--enforce-eager \
--kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_producer", "kv_rank": 0, "kv_parallel_size": 2}' &

VLLM_USE_V1=1 \
CUDA_VISIBLE_DEVICES=1 \
python -m vllm.entrypoints.openai.api_server \
--host 0.0.0.0 --port 9999 \
--model /stores/framework-test/models/llm/LLM-Research/Meta-Llama-3.1-8B-Instruct \
--gpu-memory-utilization 0.8 \
--trust-remote-code \
--dtype bfloat16 \
--tensor-parallel-size 1 \
--pipeline-parallel-size 1 \
--max-model-len 2048 \
--max-num-seqs 256 \
--enforce-eager \
--kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_consumer", "kv_rank": 1, "kv_parallel_size": 2}' &
wait
