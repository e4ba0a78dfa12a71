# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/11214 (2025-10-04, merged), seen 2026-12-05: a correct launch: the PR's accuracy run of Qwen3-Next with the Mamba radix cache, as posted.
python3 -m sglang.launch_server --model Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4  --chunked-prefill-size 64 --max-running-requests 16
