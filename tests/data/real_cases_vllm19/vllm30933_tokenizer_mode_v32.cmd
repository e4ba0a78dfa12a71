# https://github.com/vllm-project/vllm/issues/30933 (vLLM 0.12.0, 2025-12-18; "ValueError: No tokenizer registered for tokenizer_mode='deepseek_v32'."; the mode's registry name was 'deepseekv32' in 0.12.0, vllm PR#30609/#30658)
vllm serve deepseek-ai/DeepSeek-V3.2    --tensor-parallel-size 8    --tokenizer-mode deepseek_v32
