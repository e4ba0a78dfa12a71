# Reconstructed (not copied) after https://github.com/southfreebird/vllm/blob/026af4d1a3847e70b9d847d2f7b1a3c9c98ec381/run_vllm.sh, seen 2026-12-04: a vLLM fork's `vllm serve` of Llama-3.1-8B with a single-quoted medusa `--speculative-config` JSON, then an indented commented-out alternative (no newline at the end).
vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct \
          --served-model-name meta-llama/Meta-Llama-3.1-8B-Instruct-fast \
          --trust-remote-code \
          --disable-log-requests \
          --tensor-parallel-size 2 \
          --gpu-memory-utilization 0.97 \
          --enable-prefix-caching \
          --enable-auto-tool-choice \
          --tool-call-parser llama3_json \
          --speculative-config '{"model": "./test-medusa/", "num_speculative_tokens": 1, "disable_logprobs": false, "disable_log_stats": false, "disable_by_batch_size": 30, "method": "medusa"}'
        #   --speculative-config '{"model": "./test-medusa/", "num_speculative_tokens": 3, "method": "medusa"}'