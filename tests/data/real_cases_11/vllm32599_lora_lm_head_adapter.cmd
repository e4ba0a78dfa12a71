# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/32599 (2026-01-19), seen 2026-12-02: the LoRA serving command of vLLM's documentation as the reporter ran it; the server fails loading the adapter with "ValueError: base_model.model.lm_head.base_layer.weight is unsupported LoRA weight" (the adapter's own lm_head weights).
vllm serve meta-llama/Llama-3.2-3B-Instruct \
    --enable-lora \
    --lora-modules sql-lora=jeeejeee/llama32-3b-text2sql-spider
