#!/bin/bash
# Reconstructed (not copied) after https://github.com/ggaaooppeenngg/cpumemconnector/blob/9524a23a75142b8c4c82e0ea6b4f8d98ddb27d4b/run_d.sh, seen 2026-12-04: the decode side of a P/D pair with an out-of-tree KV connector: `PYTHONPATH=$PWD CUDA_VISIBLE_DEVICES=1 vllm serve`, `--kv-transfer-config` alone on its line and the JSON (kv_connector_module_path, kv_consumer) on the next, an indented blank last line (kept: the structure and the flags)
PYTHONPATH=$PWD CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-0.6B \
    --port 8200 \
    --max-model-len 2048 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"SharedCPUMemoryConnector","kv_rank":1,"kv_parallel_size":2,"kv_role":"kv_consumer","kv_connector_module_path":"cpu_memory_connector"}'
    
