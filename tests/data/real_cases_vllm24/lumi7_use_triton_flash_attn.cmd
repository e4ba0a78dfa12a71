# https://github.com/lumi-ai-factory/laifs-container-recipes/issues/7 (2025-12-03, ROCm container: "fails on LUMI when started for example with `vllm serve -tp 8 Llama-Poro-2-70B-Instruct`. Since the vLLM V0 deprecation, the environment variable VLLM_USE_TRITON_FLASH_ATTN=0 is no longer supported")
VLLM_USE_TRITON_FLASH_ATTN=0 vllm serve -tp 8 Llama-Poro-2-70B-Instruct
