# https://github.com/vllm-project/vllm/issues/30933 (vLLM 0.12.0, 2025-12-18; "ValueError: No tokenizer registered for tokenizer_mode='deepseek_v32'."; the 0.12.0 wheel registers the tokenizers hf and mistral only, deepseek_v32 is registered from 0.13.0)
vllm serve deepseek-ai/DeepSeek-V3.2    --tensor-parallel-size 8    --tokenizer-mode deepseek_v32
