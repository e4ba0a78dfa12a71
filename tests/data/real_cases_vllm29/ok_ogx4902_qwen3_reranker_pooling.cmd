# https://github.com/ogx-ai/ogx/pull/4902 (2026-02-12: the server the PR's recorded vLLM rerank tests ran against; the `uv run --python 3.12 --with vllm` wrapper dropped)
vllm serve Qwen/Qwen3-Reranker-0.6B --port 8000 --runner pooling
