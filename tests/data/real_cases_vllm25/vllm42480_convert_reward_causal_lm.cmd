# https://github.com/vllm-project/vllm/issues/42480 (2026-05-13, vLLM 0.14.1: "Using --convert with a causal LM is silently accepted but crashes at engine startup"; the report's command, the log warns "`--convert reward` is deprecated and will be removed in v0.15. Please use `--convert embed` instead." and the crash ends in vllm/model_executor/models/adapters.py)
/root/anaconda3/envs/vllm/bin/vllm serve \
  /root/.cache/modelscope/hub/models/LLM-Research/Meta-Llama-3___1-8B-Instruct \
  --host 127.0.0.1 \
  --port 19092 \
  --convert reward
