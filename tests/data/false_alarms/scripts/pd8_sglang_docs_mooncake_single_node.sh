#!/bin/bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/08edc506b2da77e7fa8a6a3a1ec7a704241703d4/docs/advanced_features/pd_disaggregation.md, "Mooncake / Llama Single Node", seen 2026-12-02: the prefill and decode servers and the router in PD mode, as documented (the three commands, one node; `&` added so one script starts them).
python -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --disaggregation-mode prefill \
  --port 30000 \
  --disaggregation-ib-device mlx5_roce0 &
python -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --disaggregation-mode decode \
  --port 30001 \
  --base-gpu-id 1 \
  --disaggregation-ib-device mlx5_roce0 &
python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 0.0.0.0 --port 8000
