# Copied from https://github.com/vllm-project/vllm-metal/pull/624 (2026-08-18; seen 2026-12-03): "the normal GGUF serve shape": a local .gguf file with the original repo as --tokenizer (vLLM's GGUF documentation gives the same form).
vllm serve /path/to/Qwen3-0.6B-Q8_0.gguf \
  --tokenizer Qwen/Qwen3-0.6B
