# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/446 (2026-05-08, "Fix Gemma 4 limit-mm-per-prompt examples": "The previous comma-separated form is rejected by vLLM argparse: --limit-mm-per-prompt image=4,audio=1"; the recipe's Gemma 4 multimodal command)
vllm serve google/gemma-4-E4B-it --limit-mm-per-prompt image=4,audio=1
