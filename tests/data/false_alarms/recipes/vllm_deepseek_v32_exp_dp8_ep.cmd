# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/DeepSeek/DeepSeek-V3_2-Exp.md (Serving on 8xH200 (or H20) GPUs), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.11.0 (the command's lines were last changed on 2025-09-30, git blame at 8959cf6; the newest release the recipes repository names by then is 0.11.0)
vllm serve deepseek-ai/DeepSeek-V3.2-Exp -dp 8 --enable-expert-parallel
