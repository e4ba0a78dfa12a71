# Reconstructed (not copied) after https://github.com/uccl-project/uccl/pull/562 (2025-11-25, merged), seen 2026-12-04: a correct launch: the PR's 4-node DeepEP server (DP attention, --enable-dp-lm-head, --moe-dense-tp-size 1, --cuda-graph-bs 256, EPLB); the variables are set as a caller of the PR's script would.
MODEL_PATH=deepseek-ai/DeepSeek-V3
NNODES=4
NODE_RANK=0
DIST_ADDR=10.0.0.1:5000
DEEPEP_CFG=/opt/deepep_config.json
python -m sglang.launch_server \
  --model-path "$MODEL_PATH" \
  --tp-size 32 \
  --dp-size 32 \
  --ep-size 32 \
  --nnodes "$NNODES" \
  --node-rank "$NODE_RANK" \
  --dist-init-addr "$DIST_ADDR" \
  --trust-remote-code \
  --mem-fraction-static 0.85 \
  --attention-backend flashinfer \
  --enable-eplb \
  --eplb-algorithm deepseek \
  --ep-num-redundant-experts 0 \
  --ep-dispatch-algorithm dynamic \
  --enable-dp-attention \
  --enable-dp-lm-head \
  --page-size 256 \
  --moe-dense-tp-size 1 \
  --chunked-prefill-size 32768 \
  --cuda-graph-bs 256 \
  --moe-a2a-backend deepep \
  --deepep-mode normal \
  --deepep-config "$DEEPEP_CFG"
