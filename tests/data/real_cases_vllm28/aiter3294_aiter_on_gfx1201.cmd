# Reconstructed (not copied) after https://github.com/ROCm/aiter/issues/3294: VLLM_ROCM_USE_AITER=1 on two AMD AI Pro R9700 (gfx1201): "vllm fails to start with an error related to aiter not being available for the compute type"; the model and sizes are stand-ins (the report names none)
VLLM_ROCM_USE_AITER=1 vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2
