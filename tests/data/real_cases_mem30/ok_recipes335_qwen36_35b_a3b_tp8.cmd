# source: https://github.com/vllm-project/recipes/pull/335 (2026-04-16) "Add qwen36": the recipe's launch of Qwen3.6-35B-A3B.
# GPU: not named (the recipe's 8 GPUs). Release: not named. Model config: models/qwen3.6-35b-a3b (a copy of tests/data/models/).
vllm serve Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 8 --max-model-len 262144 --reasoning-parser qwen3
