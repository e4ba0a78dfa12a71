# https://github.com/vllm-project/vllm/pull/36138 -- 2026-03-05: correct, the PR's test launch (a draft model as speculator, reasoning parser).
vllm serve "Qwen/Qwen3-8B" \
  --max-model-len 40960 \
  --reasoning-parser qwen3 \
  --speculative-config '{"method":"draft_model","model":"Qwen/Qwen3-8B","num_speculative_tokens":5}'
