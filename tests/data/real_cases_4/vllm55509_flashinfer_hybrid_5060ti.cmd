# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/55509, seen 2026-12-02: arm B of the report (arm A's launch plus only --attention-backend FLASHINFER) on 2x RTX 5060 Ti 16 GB, vLLM 0.28.0, which fails the start-up KV-cache check that arm A passes.
vllm serve RedHatAI/Qwen3.8-27B-INT4 --tensor-parallel-size 2 \
  --gpu-memory-utilization 0.90 --max-model-len 100352 --max-num-seqs 32 \
  --mamba-cache-mode align --max-num-batched-tokens 3135 --attention-backend FLASHINFER
