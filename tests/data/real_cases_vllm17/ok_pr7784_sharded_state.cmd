# https://github.com/vllm-project/vllm/pull/7784 (correct once the PR is in: --load-format takes every LoadFormat value, sharded_state included)
vllm serve Meta-Llama-3-8B-Instruct-FP8-SHARDED --tensor-parallel-size 2 --load-format sharded_state
