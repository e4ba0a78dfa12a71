# https://github.com/vllm-project/vllm/issues/17636 (2025-05, release not named): "ValueError: OPTForCausalLM does not
# support LoRA yet." The command as posted:
vllm serve unsloth/qwen3-4b-unsloth-bnb-4bit --enable-lora --lora-modules adapter_name=checkpoint_xxx --dtype auto --api-key xxx
