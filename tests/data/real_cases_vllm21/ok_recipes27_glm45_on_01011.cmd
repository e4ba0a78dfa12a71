# https://github.com/vllm-project/recipes/pull/27 (2025-08-22: "Updated to 0.10.1.1, problem is fixed now, glm45 works": the recipe's command before the PR's change)
vllm serve zai-org/GLM-4.5-Air-FP8 \
     --tensor-parallel-size 8 \
     --tool-call-parser glm45 \
     --reasoning-parser glm45 \
     --enable-auto-tool-choice
