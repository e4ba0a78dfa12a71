#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/mk622/LLaVA/blob/9f973a6874f3c2279e7844ea5dceaed75f0eb6cd/vllm/entrypoint.sh, seen 2026-12-02: keeps `set -euo pipefail` and `exec` of the vLLM API server with fixed --host/--port followed by every argument of the script ("$@")
# args: --model llava-hf/llava-1.5-7b-hf --max-model-len 4096
set -euo pipefail
exec python3 -m vllm.entrypoints.openai.api_server --host 0.0.0.0 --port 8000 "$@"
