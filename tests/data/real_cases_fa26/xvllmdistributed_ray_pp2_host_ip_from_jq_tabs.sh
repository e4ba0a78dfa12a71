#!/bin/sh
# Reconstructed (not copied) after https://github.com/LQR471814/x.vllm-distributed/blob/051299205edefd1d0726d95d4d1b065ef0e40581/vllm.sh, seen 2026-12-04: two machines of one GPU each joined by `ray start` (the Makefile's head/worker targets); this script exports VLLM_HOST_IP from `ip -j addr | jq` and runs `uv run vllm serve` with the Ray executor, TP 1 x PP 2, tab-indented flags (kept: the structure and the flags)
export VLLM_HOST_IP="$(ip -j addr show | jq -r '.[ ] | .addr_info[].local | select(startswith("192.168.20"))')"
uv run vllm serve Qwen/Qwen3-0.6B \
	--distributed-executor-backend ray \
	--tensor-parallel-size 1 \
	--pipeline-parallel-size 2
