# Reconstructed (not copied) after https://github.com/flagos-ai/FlagScale/pull/1075: a serve config's limit_mm_per_prompt: image=X, passed on as --limit-mm-per-prompt image=X, which vLLM v0.13.0 parses as JSON (a parse error at start-up); the model is a stand-in
vllm serve Qwen/Qwen2.5-VL-7B-Instruct --limit-mm-per-prompt image=4 --max-model-len 32768
