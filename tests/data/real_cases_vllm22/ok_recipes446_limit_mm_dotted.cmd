# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/446 (2026-05-08: "Verified against vLLM argparse handling that `--limit-mm-per-prompt.image 4 --limit-mm-per-prompt.audio 1` parses to {"image": 4, "audio": 1}"; the recipe's Gemma 4 model)
vllm serve google/gemma-4-E4B-it --limit-mm-per-prompt.image 4 --limit-mm-per-prompt.audio 1
