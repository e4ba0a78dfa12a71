# https://github.com/QwenLM/Qwen3-VL-Embedding/issues/21 (2026-01-13, vllm==0.11.0: "vllm serve Qwen/Qwen3-VL-Embedding-8B" stops with "ValueError: Following weights were not initialized from checkpoint: {'language_model.lm_head.weight'}"); the log redirection and background "&" left out
vllm serve Qwen/Qwen3-VL-Embedding-8B --served-model-name Qwen3-VL-Embedding-8B --host 0.0.0.0 --port 8801
