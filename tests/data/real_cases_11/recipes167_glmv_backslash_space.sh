# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/167 (GLM/GLM-V.md before commit 82ea5d3, 2025-12), seen 2026-12-02: the recipe's tensor-parallel block as published; its `--mm-encoder-tp-mode data \ ` line ends in a backslash and a space. The PR quotes "vllm: error: unrecognized arguments:  \n--mm_processor_cache_type: not found" and renamed the flag (the backslash-space stayed).
# Start server with FP8 model on 4 GPUs, the model can also be changed to BF16 as zai-org/GLM-4.5V
vllm serve zai-org/GLM-4.5V-FP8 \
     --tensor-parallel-size 4 \
     --tool-call-parser glm45 \
     --reasoning-parser glm45 \
     --enable-auto-tool-choice \
     --enable-expert-parallel \
     --allowed-local-media-path / \
     --mm-encoder-tp-mode data \ 
     --mm_processor_cache_type shm
