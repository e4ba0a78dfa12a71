# Reconstructed (not copied) after https://github.com/goodfire-ai/sglang-deployment-poc/blob/1175f15571db9960c2a0c2a9f2ed146e67b82651/Makefile, seen 2026-12-04: the .PHONY list, a help target, the `setup` recipe's multi-line `@if [ -f .env ]; then \ ... fi`, `start-local` with `$(or $(MODEL_PATH),default)` values, `start-server` with `$(if $(TP),--tp $(TP),)` and `$(if $(MEM_FRACTION),...,--mem-fraction-static 0.85)`, and the health/stop targets using `$(or ...)`.
.PHONY: help setup install start-local start-server health-check stop-server

help:
	@echo "targets: setup install start-local start-server health-check stop-server"

setup:
	@if [ -f .env ]; then \
		echo ".env exists"; \
	else \
		cp .env.example .env; \
		echo "edit .env"; \
	fi

install:
	uv sync

start-local:
	uv run python -m sglang.launch_server \
		--model-path $(or $(MODEL_PATH),meta-llama/Llama-3.2-1B-Instruct) \
		--host $(or $(SERVER_HOST),127.0.0.1) \
		--port $(or $(SERVER_PORT),30000) \
		--log-level info

# Usage: make start-server MODEL_PATH=<path> TP=4
start-server:
	uv run python -m sglang.launch_server \
		--model-path $(or $(MODEL_PATH),meta-llama/Meta-Llama-3-70B-Instruct) \
		$(if $(TP),--tp $(TP),) \
		$(if $(DP),--dp $(DP),) \
		$(if $(PP),--pp $(PP),) \
		--host $(or $(SERVER_HOST),0.0.0.0) \
		--port $(or $(SERVER_PORT),30000) \
		$(if $(MEM_FRACTION),--mem-fraction-static $(MEM_FRACTION),--mem-fraction-static 0.85) \
		$(if $(QUANTIZATION),--quantization $(QUANTIZATION),) \
		--trust-remote-code \
		$(EXTRA_ARGS)

health-check:
	@curl -s http://$(or $(SERVER_HOST),localhost):$(or $(SERVER_PORT),30000)/health || echo "not responding"

stop-server:
	@lsof -ti:$(or $(SERVER_PORT),30000) | xargs kill -9 2>/dev/null || echo "no server on port $(or $(SERVER_PORT),30000)"
