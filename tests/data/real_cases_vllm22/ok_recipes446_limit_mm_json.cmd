# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/446 (2026-05-08, the reviewer's form the PR adopted for the multi-modality examples: --limit-mm-per-prompt '{"image": 4, "audio": 1}')
vllm serve google/gemma-4-E4B-it --limit-mm-per-prompt '{"image": 4, "audio": 1}'
