# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/4048 (2025-03-04, description), seen 2026-12-02: the command; the server starts, a 160k-token request fails with "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). Use a shorter input or enable --allow-auto-truncate." (the KV pool holds fewer tokens than --context-length).
python -m sglang.launch_server \
--model-path  /models/deepseek-ai/deepseek-r1 \
--host 0.0.0.0 \
--port 8100 \
--tensor-parallel-size 8 \
--mem-fraction-static 0.9 \
--trust-remote-code \
--context-length 163840 \
--chunked-prefill-size 4096 \
--served-model-name DeepSeek-R1-Sglang-160k
