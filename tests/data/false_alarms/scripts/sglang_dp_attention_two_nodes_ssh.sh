#!/bin/bash
# Reconstructed (not copied) after https://docs.nvidia.com/dynamo/latest/backends/sglang/multinode-examples.html (Multi-node sized models: the prefill worker's two nodes, TP16 with DP attention), seen 2026-12-02: the two node commands with their flags and values; the head's address set and the ssh lines (one per node, the venv's python3) ours.
HEAD_PREFILL_NODE_IP=10.0.0.1
ssh 10.0.0.1 /opt/venv/bin/python3 -m dynamo.sglang --model-path /model/ --served-model-name deepseek-ai/DeepSeek-R1 \
  --tp 16 --dp-size 16 --dist-init-addr ${HEAD_PREFILL_NODE_IP}:29500 --nnodes 2 --node-rank 0 \
  --enable-dp-attention --trust-remote-code --skip-tokenizer-init --disaggregation-mode prefill \
  --disaggregation-transfer-backend nixl --disaggregation-bootstrap-port 30001 \
  --load-balance-method round_robin --host 0.0.0.0 --mem-fraction-static 0.82 &
ssh 10.0.0.2 /opt/venv/bin/python3 -m dynamo.sglang --model-path /model/ --served-model-name deepseek-ai/DeepSeek-R1 \
  --tp 16 --dp-size 16 --dist-init-addr ${HEAD_PREFILL_NODE_IP}:29500 --nnodes 2 --node-rank 1 \
  --enable-dp-attention --trust-remote-code --skip-tokenizer-init --disaggregation-mode prefill \
  --disaggregation-transfer-backend nixl --disaggregation-bootstrap-port 30001 \
  --load-balance-method round_robin --host 0.0.0.0 --mem-fraction-static 0.82 &
wait
