# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/LiquidAI/LFM2.5.md (Speed-of-Light Tuning), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.21.0 (the command's lines were last changed on 2026-06-25, git blame at 8959cf6; the newest release the recipes repository names by then is 0.21.0)
vllm serve LiquidAI/LFM2.5-1.2B-Instruct --optimization-level 3
