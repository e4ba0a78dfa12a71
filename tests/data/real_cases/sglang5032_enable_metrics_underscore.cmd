# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/5032, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics
