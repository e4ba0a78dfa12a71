# Copied from https://github.com/vllm-project/vllm/issues/13510 (vLLM 0.7.2, 2025-02-19; seen 2026-12-03): "Running a model that does not exist (e.g. MODEL=neuralmagic/Meta-Llama-3-8B-Instruct-FP8-dynamic << this does not exist)"; the repo id is well formed, the Hub has no such repo, and vLLM stops with a misleading trace (later: "Invalid repository ID or local directory specified"). The MODEL= line is the report's own.
MODEL=neuralmagic/Meta-Llama-3-8B-Instruct-FP8-dynamic
VLLM_USE_V1=1 vllm serve $MODEL --disable-log-requests --no-enable-prefix-caching
