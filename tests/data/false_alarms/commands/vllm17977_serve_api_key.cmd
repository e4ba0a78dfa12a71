# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/17977 ("it runs well"; the error comes with a chat request), seen 2026-12-02: the serve command.
vllm serve model/vicuna-13b-v1.5 --dtype auto --api-key token-abc123
