# Reconstructed (not copied) after https://github.com/arthurbrenno/vini/blob/e9d743e7c4a8d1192da92a22af242724a93fa1e6/Makefile, seen 2026-12-03: the three targets, with the deploy recipe starting vllm serve with --dtype auto and an API key.
start:
	uv run python main.py

deploy:
	vllm serve NousResearch/Meta-Llama-3-8B-Instruct --dtype auto --api-key token-abc123

install:
	uv sync
