# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/11702 (2025-10-16, merged), seen 2026-12-04: "--tp-size 8 --ep-size 7" passed the old block-quant check by floor division (8 // 7 == 1) and failed later where nobody could tell it was the pair; the PR's command.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-VL-30B-A3B-Instruct-FP8 --tp-size 8 --ep-size 7
