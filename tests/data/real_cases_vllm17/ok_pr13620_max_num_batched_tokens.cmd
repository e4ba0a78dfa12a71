# https://github.com/vllm-project/vllm/pull/13620 (correct: the PR's workaround before its fix, "You can get past this manually by setting max_num_batched_tokens")
vllm serve /home/vllm-dev/DeepSeek-R1 --trust-remote-code --tensor-parallel-size 8 --max-num-batched-tokens 163840
