# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks/issues/48 (2026-09-09; seen 2026-12-03): "our locally adapted launcher accepted a node-rank argument but did not pass `--node-rank` to vLLM on either node. It only selected API-server versus `--headless` arguments"; the worker logged "Inferred data_parallel_rank 0 from node_rank 0" and the TP2 handshake hung. The shape of the pinned upstream start.sh (head: `--node-rank 0`, worker: `--node-rank 1 --headless`, --nnodes 2, --master-addr) with the rank left out, as the report says; the model, addresses and port are placeholders (the report names no values), the role a script argument.
ROLE="$1"
ARGS=(/models/Qwen3.8-Flash-Next --tensor-parallel-size 2 --nnodes 2 --master-addr 192.168.100.10 --master-port 29501)
if [ "$ROLE" = head ]; then
  vllm serve "${ARGS[@]}" --host 0.0.0.0 --port 8000
else
  vllm serve "${ARGS[@]}" --headless
fi
