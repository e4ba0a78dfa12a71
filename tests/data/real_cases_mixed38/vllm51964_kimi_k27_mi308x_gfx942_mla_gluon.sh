# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/51964 (2026-08-12, closed), seen 2026-12-05: Kimi-K2.7 with vLLM 0.27.0+rocm723 on 8x AMD MI308X (gfx942) and VLLM_ROCM_USE_AITER=1 stops at start with "AssertionError: mla_gluon requires gfx950 (CDNA4), got gfx942" (the release's Gluon MLA decode is selected on gfx942; vllm#50682 gates it behind gfx950 later). The commands as posted; the GPUs are a stand-in: MI300X profiles (gfx942 as the MI308X, 192 GB each).
export AITER_ROCM_ARCH="gfx942"
export PYTORCH_ROCM_ARCH="gfx942"
export MORI_GPU_ARCHS="gfx942"
export VLLM_ROCM_USE_AITER=1
export TORCH_BLAS_PREFER_HIPBLASLT=1
export HIP_FORCE_DEV_KERNARG=1
vllm serve /pool/models/moonshotai/Kimi-K2.7 --served-model-name kimi --trust-remote-code --tensor-parallel-size 8 --mm-encoder-tp-mode data --max-model-len 262144 --gpu-memory-utilization 0.6 --port 8003 --host 0.0.0.0 --tool-call-parser kimi_k2 --enable-auto-tool-choice --reasoning-parser kimi_k2 --kv-cache-dtype fp8
