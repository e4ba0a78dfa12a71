# https://github.com/vllm-project/recipes/blob/1d43b0083f2f6831b32a33e495603be5ec5364f8/MiMo/MiMo-V2-Flash.md (recipe, 2025-12: DP/TP/EP with --generation-config vllm; release not named)
vllm serve XiaomiMiMo/MiMo-V2-Flash \
    --host 0.0.0.0 \
    --port 9001 \
    --seed 1024 \
    --served-model-name mimo_v2_flash \
    --data-parallel-size 2 \
    --tensor-parallel-size 4 \
    --enable-expert-parallel \
    --trust-remote-code \
    --gpu-memory-utilization 0.9 \
    --generation-config vllm
