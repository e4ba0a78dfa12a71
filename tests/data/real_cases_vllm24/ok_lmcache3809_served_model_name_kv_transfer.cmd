# https://github.com/LMCache/LMCache/issues/3809 (2026-06-22: the vLLM server starts and serves under its alias; what failed was LMCache's bench looking the alias up; the report's server command)
vllm serve /llm2/Moonshotai/Kimi-K2.5 --served-model-name kimi-k2.5 --tensor-parallel-size 8 --kv-transfer-config '{"kv_connector":"LMCacheMPConnector", "kv_role":"kv_both"}'
