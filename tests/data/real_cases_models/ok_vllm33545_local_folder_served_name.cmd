# Copied from https://github.com/vllm-project/vllm/pull/33545 (2026-02-02; seen 2026-12-03): a local folder shaped like ORG/NAME with --served-model-name; the server starts and serves (the PR is about the harmless "Error retrieving safetensors" lines it logs).
vllm serve /data/models/Qwen/Qwen3-ASR-1.7B --served-model-name Qwen/Qwen3-ASR-1.7B
