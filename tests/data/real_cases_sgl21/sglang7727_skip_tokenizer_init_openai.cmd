# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/7727 (2025-07-03), seen 2026-12-03: with --skip-tokenizer-init the OpenAI-compatible endpoints raise (serving_base.handle_request) on a request with token ids. The flag as named; the model is a stand-in.
python -m sglang.launch_server --model-path Qwen/Qwen2.5-1.5B-Instruct --skip-tokenizer-init --port 30000
