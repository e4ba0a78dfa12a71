# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/877 (2026-08-28, "init glm53 recipes": models/zai-org/GLM-5.3.yaml starts the server with --speculative-config.method mtp --speculative-config.num_speculative_tokens 5, which a review calls non-standard; vLLM's parser turns --flag.key value into the JSON flag's key, so the command starts); the lines the review quotes, the model's other flags left out
vllm serve zai-org/GLM-5.3 \
  --kv-cache-dtype fp8 \
  --tensor-parallel-size 8 \
  --speculative-config.method mtp \
  --speculative-config.num_speculative_tokens 5
