# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/15337 (2025-12-17, merged), seen 2026-12-04: a correct launch: the Qwen3-Next usage docs' command (hybrid Mamba model, default Mamba radix cache).
python3 -m sglang.launch_server --model Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4
