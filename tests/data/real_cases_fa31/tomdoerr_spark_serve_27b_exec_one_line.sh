#!/bin/bash
# Reconstructed (not copied) after https://github.com/tom-doerr/llm/blob/162c6ec5ff829f37b0ceca7869cd30e54c35c89a/vllm-serve-27b.sh: the script as posted (one exec line, Qwen3.5-27B-FP8)
exec vllm serve Qwen/Qwen3.5-27B-FP8 --trust-remote-code --gpu-memory-utilization 0.70 --reasoning-parser qwen3 --enforce-eager --host 0.0.0.0 --port 8000
