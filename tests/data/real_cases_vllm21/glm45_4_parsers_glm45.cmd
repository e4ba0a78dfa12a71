# https://github.com/zai-org/GLM-4.5/issues/4 (2025-07-29, a ROCm vLLM image: "vllm serve: error: argument --reasoning-parser: invalid choice: 'glm45' (choose from deepseek_r1, granite, qwen3)"; the README's command, the release not named)
vllm serve zai-org/GLM-4.5-Air-FP8 \
    --tensor-parallel-size 8 \
    --tool-call-parser glm45 \
    --reasoning-parser glm45 \
    --enable-auto-tool-choice \
    --served-model-name glm45air
