# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/InternVL/InternVL3_5.md (Launching InternVL3.5 with vLLM), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.10.2 (the command's lines were last changed on 2025-09-20, git blame at 8959cf6; the newest release the recipes repository names by then is 0.10.2)
vllm serve OpenGVLab/InternVL3_5-8B --trust-remote-code
