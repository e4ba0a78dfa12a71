# https://github.com/vllm-project/vllm/issues/51396 (2026-08-07, main at 8d9b52f and "the v0.25.1-era code": --cpu-offload-gb is silently ignored when the V2 model runner is active, the default for DeepseekV2ForCausalLM; the visible failure is an OOM)
vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat --cpu-offload-gb 12
