# Reconstructed (not copied) after https://github.com/JaleelRadhu/Faithful_Summarization/blob/45b1738567bf610bf5c0b88e50bc0cf2957f12b1/Makefile.mk, seen 2026-12-03: the `?=` settings (quoted model and host), .PHONY, and the run recipe with @echo lines and the api_server line built from $(VARS).
MODEL_NAME ?= "Qwen/Qwen2.5-7B-Instruct"
TENSOR_PARALLEL_SIZE ?= 2
PORT ?= 8000
GPU_MEM_UTIL ?= 0.50
HOST ?= "0.0.0.0"

.PHONY: run help

run:
	@echo "Starting vLLM server: $(MODEL_NAME) on port $(PORT)"
	python -m vllm.entrypoints.openai.api_server \
		--model $(MODEL_NAME) \
		--tensor-parallel-size $(TENSOR_PARALLEL_SIZE) \
		--port $(PORT) \
		--host $(HOST) \
		--gpu-memory-utilization $(GPU_MEM_UTIL)

help:
	@grep -E '^[a-zA-Z_-]+:.*?## .*$$' $(MAKEFILE_LIST)
