# Reconstructed (not copied) after https://github.com/zai-org/GLM-4.5/blob/08158da0b5cb63e7e9da9529482cc5d30e2a7437/README.md (Quick Start, vLLM), seen 2026-12-03: the model card's vLLM line, re-typed as one line.
vllm serve zai-org/GLM-4.5-Air --tensor-parallel-size 8 --tool-call-parser glm45 --reasoning-parser glm45 --enable-auto-tool-choice --served-model-name glm-4.5-air
