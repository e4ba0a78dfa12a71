# https://github.com/vllm-project/vllm/issues/40693 (vLLM 0.19.1): "ValueError: Gemma4ForConditionalGeneration does not
# support LoRA yet." The report gives no command, only "start gemma-4-E4B-it and fine tuning model with vllm0.19.1":
# the launch below is the smallest that does that (the adapter's path is a placeholder).
vllm serve google/gemma-4-E4B-it --enable-lora --lora-modules ft=/adapters/gemma4-e4b-lora
