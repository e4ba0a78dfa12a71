# https://github.com/vllm-project/vllm/issues/16883 (correct: "In v0 mode, ngram speculative decoding works as expected", vLLM 0.8.3/0.8.4; the report's "use v0" launch)
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
vllm serve /data/code/Qwen2.5-Coder-32B-Instruct \
  --host 0.0.0.0 \
  --port 8080 \
  --trust-remote-code \
  --gpu-memory-utilization 0.9 \
  --dtype auto \
  --tensor-parallel-size 4 \
  --max-num-batched-tokens 131072 \
  --max-model-len 131072 \
  --max-num-seqs 8 \
  --enable-prefix-caching \
  --speculative-config '{"method": "ngram", "prompt_lookup_min": 10, "prompt_lookup_max": 50, "num_speculative_tokens": 300}' \
  --rope-scaling '{ "factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn" }' \
  --enforce-eager
