# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/9791 (2024-10-29, vllm==0.6.3 in a compose service), seen 2026-12-02: the launch as posted; LLM_MODEL_NAME is microsoft/Phi-3-small-8k-instruct per the title, but its definition is not posted, so it is not set here.
vllm serve  ${LLM_MODEL_NAME} --trust-remote-code --dtype=half
