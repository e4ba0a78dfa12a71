# Reconstructed (not copied) after https://github.com/jiaojiajun-amd/rocm-agent/blob/3c657dc012f3fe71b4a403ab0c694ea43ab6ac42/sg_glm.sh, seen 2026-12-04: an AMD engineer's script: a block of commented-out exports and a commented-out launch ending in `\`, then `SGLANG_USE_AITER=0 python3 -m sglang.launch_server` of GLM-4.5-Air with the triton attention backend, TP 4, a trailing blank and blank lines at the end (kept: the structure and the flags)
# export SGLANG_SKIP_MARLIN_REPACK=1
# export USE_ROCM_AITER_ROPE_BACKEND=0
# export SGLANG_DISABLE_MARLIN_MOE=1

# export HSA_FORCE_FINE_GRAIN_PCIE=1
# export NCCL_DEBUG=INFO
# export NCCL_IB_DISABLE=1  # without InfiniBand
# export SGLANG_USE_AITER=0

# python -m sglang.launch_server \
#   --model-path zai-org/GLM-4.5-Air \
#   --tp 8 \
#   --dtype bfloat16 \
#   --trust-remote-code \

SGLANG_USE_AITER=0 python3 -m sglang.launch_server --model zai-org/GLM-4.5-Air --attention-backend triton --tp 4 --trust-remote-code 



