#!/bin/bash
# Reconstructed (not copied) after https://github.com/tom-doerr/llm/blob/162c6ec5ff829f37b0ceca7869cd30e54c35c89a/vllm-dp-head.sh: the script as posted (the head of a two-node data-parallel launch, --data-parallel-start-rank 0 without --headless; run in vllm/vllm-openai:v0.17.0-cu130, the repository's CLAUDE.md says "DP native multi-node (Mar 2026, WORKING)")
MODEL="/root/.cache/huggingface/hub/models--Intel--Qwen3.5-122B-A10B-int4-AutoRound/snapshots/3f4ba633bf17c19e41f874def42760bf50925a3e"
exec vllm serve "$MODEL" \
  --trust-remote-code \
  --gpu-memory-utilization ${GPU_MEM_UTIL:-0.60} \
  --reasoning-parser qwen3 \
  --enforce-eager \
  --max-num-seqs 32 \
  --max-num-batched-tokens 4096 \
  --limit-mm-per-prompt '{"video": 0}' \
  --host 0.0.0.0 --port 8000 \
  --data-parallel-size 2 \
  --data-parallel-size-local 1 \
  --data-parallel-address 192.168.100.10 \
  --data-parallel-rpc-port 13345 \
  --data-parallel-start-rank 0
