# https://github.com/llmos-ai/llmos/issues/41 (vLLM's LoRA guide's launch, quoted: LlamaForCausalLM implements SupportsLoRA; correct)
vllm serve meta-llama/Llama-2-7b-hf --enable-lora --lora-modules sql-lora=$HOME/.cache/huggingface/hub/models--yard1--llama-2-7b-sql-lora-test/snapshots/0dfa347e8877a4d4ed19ee56c140fa518470028c/
