# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks/blob/0b62e126703cd05c1bda3926e7d602f21193147c/start.sh (lines 925 and 975, as MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks#48 cites them), seen 2026-12-03: the pinned recipe passes `--node-rank 0` on the head and `--node-rank 1 --headless` on the worker. The model, addresses and port are placeholders, as in mia48_vllm_nnodes_without_node_rank.sh.
ROLE="$1"
ARGS=(/models/Qwen3.8-Flash-Next --tensor-parallel-size 2 --nnodes 2 --master-addr 192.168.100.10 --master-port 29501)
if [ "$ROLE" = head ]; then
  vllm serve "${ARGS[@]}" --node-rank 0 --host 0.0.0.0 --port 8000
else
  vllm serve "${ARGS[@]}" --node-rank 1 --headless
fi
