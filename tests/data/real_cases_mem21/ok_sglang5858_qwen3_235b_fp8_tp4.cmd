# source: https://github.com/sgl-project/sglang/issues/5858 (2025-04-28) "[Tracker] Qwen 3 deployment"
# The tracker's launch (sglang>=0.4.6.post2); the GPU is not named. Model config: models/qwen3-235b-a22b-fp8 (tests/data/models).
python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 4 --reasoning-parser qwen3
