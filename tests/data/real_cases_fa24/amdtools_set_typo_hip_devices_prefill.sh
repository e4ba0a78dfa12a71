#!/bin/bash
# Reconstructed (not copied) after https://github.com/ZhaiFeiyue/amd-tools/blob/5020021c23e1ec9eee071bafd782d1252e632e51/cpx/sglang/prefill.sh, seen 2026-12-04: `se -ex` (a typo of `set -ex`: bash says command not found and goes on), `HIP_VISIBLE_DEVICES=56,58,60,62` before a Qwen2.5-32B prefill server with tp 4 and eight rdma devices, the last line ending in a blank.
se -ex

HIP_VISIBLE_DEVICES=56,58,60,62 python -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-32B \
  --disaggregation-mode prefill \
  --host 0.0.0.0 \
  --port 30002 \
  --tp-size 4 \
  --disaggregation-ib-device rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7 \
  --trust-remote-code 
