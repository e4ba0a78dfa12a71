# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/57713 (2026-09-19, description by a maintainer, H100), seen 2026-12-02: the container script as posted (where its variables are set, the report does not show); "MLA kv_data_type torch.uint8 is not supported. Supported dtypes: [torch.float16, torch.bfloat16, torch.float8_e4m3fn]": the MLA backend chosen on Hopper had no FP8 KV cache for this model (a bug). No release is named.
              exec vllm serve "${MODEL_PATH}" \
                --served-model-name "${MODEL}" \
                --kv-cache-dtype fp8 \
                --disable-access-log-for-endpoints=/health,/metrics \
                --max-num-seqs "${MAX_NUM_SEQS}" \
                --max-num-batched-tokens "${MAX_NUM_BATCHED_TOKENS}" \
                --max-cudagraph-capture-size "${MAX_CG_SIZE}" \
                --long-prefill-token-threshold "${LONG_PREFILL_TOKEN_THRESHOLD}" \
                --tensor-parallel-size 8 \
                --enable-expert-parallel \
                --enable-ep-weight-filter \
                --speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":${SPEC_TOKENS}}" \
                --no-enable-flashinfer-autotune \
                --reasoning-parser glm45 \
                --tool-call-parser glm47 \
                --enable-auto-tool-choice \
                --enable-prompt-tokens-details
