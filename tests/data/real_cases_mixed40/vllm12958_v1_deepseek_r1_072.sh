# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/12958 (2025-02-08, closed), seen 2026-12-05: DeepSeek-R1 with VLLM_USE_V1=1 VLLM_CUDA_MEM_ALIGN_KV_CACHE=1 on vLLM 0.7.2 fails (the maintainer: DeepSeek is not supported on V1 yet; V1 gained it in a later release). The two variables and the release as posted; the serve command is a stand-in (8-way tensor parallel).
export VLLM_USE_V1=1
export VLLM_CUDA_MEM_ALIGN_KV_CACHE=1
vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8 --trust-remote-code
