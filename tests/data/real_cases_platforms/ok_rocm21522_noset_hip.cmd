# https://github.com/vllm-project/vllm/pull/21522 -- correct: the PR's working command on MI250 (2025-07), Ray told not to set HIP_VISIBLE_DEVICES
RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --distributed-executor-backend="ray" --tensor-parallel-size 2
