# Reconstructed (not copied) after https://blog.vllm.ai/2025/09/11/qwen3-next.html
# (2025-09 vLLM blog, "vLLM Now Supports Qwen3-Next", Quickstart: the nightly wheel, then `-tp 4`)
uv pip install vllm --extra-index-url https://wheels.vllm.ai/nightly --torch-backend=auto

vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4
