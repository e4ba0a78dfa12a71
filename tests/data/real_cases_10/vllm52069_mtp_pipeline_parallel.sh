# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/52069 (2026-08-12, vllm 0.26.1rc1 nightly, 8x RTX 3090), seen 2026-12-02: the serve line as posted (the model, "<model-with-mtp-head>" in the report, stays elided); "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the `SupportsPP` interface." at create_engine_config: SpeculativeConfig verifies the MTP draft against the target's pipeline size (a bug in the framework's check, the report's analysis).
export VLLM_USE_V2_MODEL_RUNNER=1
vllm serve ... --pipeline-parallel-size 4 \
  --speculative-config '{"method":"mtp","num_speculative_tokens":3}'
