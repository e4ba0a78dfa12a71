# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/104ef15a69398127ddbc9940e9c93d5f1d9e367f/docs/basic_usage/qwen3.md (Launch Qwen3-Next with SGLang), seen 2026-12-01: the server flags with their values, re-typed as one command line (no doc prose).
python3 -m sglang.launch_server --model Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4
