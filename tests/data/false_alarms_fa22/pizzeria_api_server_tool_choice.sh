#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/maddyrucos/pizzeria_agent/blob/1461e7270d4e93889d080c781a16b936901583e0/llm/run_model.sh, seen 2026-12-04: set -euo pipefail and the api_server command with auto tool choice and the hermes parser.
set -euo pipefail

python3 -m vllm.entrypoints.openai.api_server \
  --model Qwen/Qwen2.5-3B-Instruct \
  --dtype auto \
  --max-model-len 4096 \
  --gpu-memory-utilization 0.85 \
  --enable-auto-tool-choice \
  --tool-call-parser hermes

