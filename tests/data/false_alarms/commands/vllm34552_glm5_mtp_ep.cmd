# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/34552 (2026-02-14, the PR's test launch; merged, its benchmark served 1000 requests with MTP = 1 and 3), seen 2026-12-02: the serve line with -ep and an MTP --speculative-config.
vllm serve zai-org/GLM-5-FP8 -tp 8 -ep --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' --no-enable-prefix-caching
