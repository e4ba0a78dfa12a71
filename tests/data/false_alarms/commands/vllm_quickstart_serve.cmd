# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/00bd1493b3e82d6c13c68ee8a0e1c5a96707e190/docs/getting_started/quickstart.md (OpenAI-Compatible Server), seen 2026-12-01: the server flags with their values, re-typed as one command line (no doc prose).
vllm serve Qwen/Qwen2.5-1.5B-Instruct
