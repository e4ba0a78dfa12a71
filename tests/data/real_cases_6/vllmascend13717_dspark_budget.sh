# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/issues/13717 (2026-08-06, description, image quay.io/ascend/vllm-ascend:DeepSeek-V4-Flash-0731-a3), seen 2026-12-02: the decode node's launch from the tutorial; the report elides the --kv-transfer-config and --additional-config JSON ('{...}'), so those two flags are left out here. Error: max_num_scheduled_tokens = -240 (120 batched tokens cannot hold 60 sequences' draft slots).
vllm serve DeepSeek-V4-Flash-0731 \
  --max-num-batched-tokens 120 \
  --max-num-seqs 60 \
  --speculative-config '{"num_speculative_tokens":7,"method":"dspark","enforce_eager":true}'
