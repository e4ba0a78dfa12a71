#!/bin/bash
# Reconstructed (not copied) after https://github.com/pbseiya/vllm-tb250-mining-rig/blob/2b5ba16733a2bcf10c0ef4e333dd8dc1d845c832/start_vllm.sh, seen 2026-12-04: a mining rig's 8 GPUs on PCIe x1 risers; NCCL exports, a venv's activate script, then `systemd-run --user --scope -p MemoryMax=90% python3 -m vllm.entrypoints.openai.api_server ...` (kept: the exports, the wrapper, the flags; the echo lines dropped)

export NCCL_P2P_DISABLE=1
export NCCL_IB_DISABLE=1
export NCCL_ASYNC_ERROR_HANDLING=1
export VLLM_WORKER_MULTIPROC_METHOD=spawn
export VLLM_USE_V1=1
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH

source /home/seiya/projects/vllm/vllm-env/bin/activate

systemd-run --user --scope -p MemoryMax=90% \
    python3 -m vllm.entrypoints.openai.api_server \
    --model Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8 \
    --tensor-parallel-size 8 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 8192 \
    --max-num-seqs 16 \
    --swap-space 1 \
    --trust-remote-code \
    --port 8000
