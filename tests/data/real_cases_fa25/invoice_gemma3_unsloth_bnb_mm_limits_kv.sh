#!/bin/bash
# Reconstructed (not copied) after https://github.com/Barakisa/Invoice-processing-using-vllm/blob/10da9584bab107cbdb4a12b17fb5c5d780f321b0/servers/gemma3-27-unsloth_vllm_server.sh, seen 2026-12-04: Gemma 3 27B bitsandbytes 4-bit on one GPU, `--dtype=half`, `--gpu_memory_utilization=1`, `--task generate`, `--limit-mm-per-prompt image=1,video=0` (the key=value form), `--no-enable-prefix-caching` (kept: the whole launch)
vllm serve "unsloth/gemma-3-27b-it-unsloth-bnb-4bit" \
  --host 192.168.1.220 \
  --port 8000 \
  --load-format bitsandbytes \
  --dtype=half \
  --gpu_memory_utilization=1 \
  --max-model-len 2048 \
  --task generate \
  --trust_remote_code \
  --max-num-seqs 1 \
  --limit-mm-per-prompt image=1,video=0 \
  --no-enable-prefix-caching
