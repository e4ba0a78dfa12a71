# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/GLM/GLM.md (Enabling MTP), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.15.1 (the command's lines were last changed on 2026-02-13, git blame at 8959cf6; the recipe names v0.15.1)
vllm serve zai-org/GLM-4.7-FP8 --tensor-parallel-size 4 --speculative-config.method mtp --speculative-config.num_speculative_tokens 1 --tool-call-parser glm47 --reasoning-parser glm45 --enable-auto-tool-choice
