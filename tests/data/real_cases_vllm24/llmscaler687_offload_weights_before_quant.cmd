# Reconstructed (not copied) after https://github.com/intel/llm-scaler/pull/687 (2026-09-09: "The v0.26 runtime no longer recognizes VLLM_OFFLOAD_WEIGHTS_BEFORE_QUANT, but both production and development Dockerfiles still export it"; the Dockerfiles' variable before the server start)
VLLM_OFFLOAD_WEIGHTS_BEFORE_QUANT=1 vllm serve Qwen/Qwen3-8B --quantization fp8
