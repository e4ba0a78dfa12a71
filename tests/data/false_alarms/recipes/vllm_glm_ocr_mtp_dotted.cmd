# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/GLM/GLM-OCR.md (Running GLM-OCR with MTP), seen 2026-12-02: the environment assignments and the serve flags with their values, re-typed as one command line.
# release: vllm 0.12.0 (the command's lines were last changed on 2026-01-26, git blame at 8959cf6; the newest release the recipes repository names by then is 0.12.0)
vllm serve zai-org/GLM-OCR --speculative-config.method mtp --speculative-config.num_speculative_tokens 1
