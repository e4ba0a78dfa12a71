# Reconstructed (not copied) after https://github.com/JaleelRadhu/Faithful_Summarization/blob/ca7b9fcf919f9f7653a0fd50c99f934ba4d2f7c5/eval.mk, seen 2026-12-04: the evaluator server's make file: `?=` settings followed by `#` comments on the same line (make strips the comment and keeps the blank before it), a commented alternative setting, `CUDA_VISIBLE_DEVICES=0` before the API server in the recipe, `--host "$(HOST)"` (kept: the settings, comments and the run recipe, and its help target)
MODEL_NAME ?= "mistralai/Mistral-7B-Instruct-v0.3" #"Qwen/Qwen2.5-7B-Instruct" #"meta-llama/Llama-3.1-8B-Instruct"# same/evaluator port
# MODEL_NAME ?= "Qwen/Qwen2.5-7B-Instruct" # improver

TENSOR_PARALLEL_SIZE ?= 1

PORT ?= 8000 #same/evaluator port
# PORT ?= 8001 # improver port

GPU_MEM_UTIL ?= 0.4

HOST ?= 0.0.0.0

.PHONY: run help

run:
	@echo "Starting vLLM server: $(MODEL_NAME) on $(HOST):$(PORT), TP $(TENSOR_PARALLEL_SIZE)"
	CUDA_VISIBLE_DEVICES=0 python -m vllm.entrypoints.openai.api_server \
		--model $(MODEL_NAME) \
		--tensor-parallel-size $(TENSOR_PARALLEL_SIZE) \
		--port $(PORT) \
		--host "$(HOST)" \
		--gpu-memory-utilization $(GPU_MEM_UTIL)

help:
	@echo "Available commands:"
	@grep -E '^[a-zA-Z_-]+:.*?## .*$$' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-15s %s\n", $$1, $$2}'
