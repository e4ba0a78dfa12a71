# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/7681 (2025-07-01, merged), seen 2026-12-04: a correct launch: the PR's accuracy run of DP attention on the dense Qwen3-8B (TP 8, DP 8, radix cache off), as posted.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --disable-radix-cache
