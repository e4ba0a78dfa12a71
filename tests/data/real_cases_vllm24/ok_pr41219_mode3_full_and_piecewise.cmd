# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/41219 (2026-04-29, the table's working row: "mode=3 + FULL_AND_PIECEWISE", DeepSeek-V4-Flash-FP8, TP=4)
vllm serve deepseek-ai/DeepSeek-V4-Flash-FP8 -tp 4 --compilation-config '{"mode": 3, "cudagraph_mode": "FULL_AND_PIECEWISE"}'
