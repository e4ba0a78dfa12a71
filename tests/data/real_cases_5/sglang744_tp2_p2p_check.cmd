# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/744 (2024-07-26), seen 2026-12-02: the reporter's launch; "Initialization failed. warmup error".
python -m sglang.launch_server --model-path Qwen/Qwen2-7B-Instruct  --tp 2 --mem-fraction-static 0.7  --enable-p2p-check --host 0.0.0.0 --port 8000
