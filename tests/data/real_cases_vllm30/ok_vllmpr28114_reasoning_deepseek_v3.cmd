# https://github.com/vllm-project/vllm/pull/28114 (2025-11-05: the PR's test plan, a server that starts with the deepseek_v3 reasoning parser once its import is fixed)
vllm serve /home/jovyan/qwen3-8b --reasoning-parser deepseek_v3
