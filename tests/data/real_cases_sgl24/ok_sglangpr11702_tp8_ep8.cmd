# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/11702 (2025-10-16, merged), seen 2026-12-04: a correct launch: the PR's working pair, --tp-size 8 with --ep-size 8.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-VL-30B-A3B-Instruct-FP8 --tp-size 8 --ep-size 8
