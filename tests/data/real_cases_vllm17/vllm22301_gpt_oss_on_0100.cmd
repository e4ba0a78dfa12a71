# https://github.com/vllm-project/vllm/issues/22301 (vLLM 0.10.0 from its log: openai/gpt-oss-120b needs 0.10.1, the first release with GptOssForCausalLM; stops in ModelConfig's validation)
vllm serve openai/gpt-oss-120b
