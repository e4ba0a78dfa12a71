# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/moonshotai/Kimi-Linear.md (4-GPU tensor parallel), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.11.2 (the command's lines were last changed on 2025-10-31, git blame at 8959cf6; the recipe installs vllm==0.11.2)
vllm serve moonshotai/Kimi-Linear-48B-A3B-Instruct --port 8000 --tensor-parallel-size 4 --max-model-len 1048576 --trust-remote-code
