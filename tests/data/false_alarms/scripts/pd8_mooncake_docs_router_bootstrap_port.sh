#!/bin/bash
# Reconstructed (not copied) after https://github.com/kvcache-ai/Mooncake/pull/2267 (2026-05-29, docs/source/getting_started/examples/sglang-integration-v1.md), seen 2026-12-02: prefill and decode on one host (tp 2 each, decode from GPU 2) and the router with the prefill's bootstrap port written after its URL (`--prefill URL 8998`, which the router takes: `--prefill URL [BOOTSTRAP_PORT]`; a review bot claimed it was a parse error). The prefill line is the one of sgl-project/sglang#4880's run instructions the doc follows.
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 --disaggregation-mode prefill --port 30000 --host 192.168.0.137 --tp-size 2 &
python -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 \
  --disaggregation-mode decode \
  --port 30001 --base-gpu-id 2 --host 192.168.0.137 --tp-size 2 &
python3 -m sglang_router.launch_router \
  --pd-disaggregation \
  --prefill "http://192.168.0.137:30000" 8998 \
  --decode "http://192.168.0.137:30001" \
  --host 0.0.0.0 \
  --port 8000
