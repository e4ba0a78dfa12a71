# https://github.com/vllm-project/recipes/pull/563 (2026-06-17: the Mistral-Medium-3.5-128B recipe's command, which the PR calls broken for --speculative_config; vLLM's parser turns the underscores of an option's name into dashes, so the command as written starts)
vllm serve mistralai/Mistral-Medium-3.5-128B --tensor-parallel-size 8 \
  --tool-call-parser mistral --enable-auto-tool-choice --reasoning-parser mistral \
  --max_num_batched_tokens 16384 --max_num_seqs 128 --gpu_memory_utilization 0.8 \
  --speculative_config '{"model":"mistralai/Mistral-Medium-3.5-128B-EAGLE","num_speculative_tokens":3,"method":"eagle","max_model_len":"65536"}'
