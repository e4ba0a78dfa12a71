# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/pull/15660 (docs/source/tutorials/models/Spark-X2.5.md; a review bot called --generation-config invalid, the author showed it is a vllm serve flag), seen 2026-12-02: the serve command and its flags; the model path variable is a placeholder.
MODEL_PATH=/models/Spark-X2.5
vllm serve "${MODEL_PATH}" \
  --host 0.0.0.0 \
  --port 8000 \
  --served-model-name spark25 \
  --trust-remote-code \
  --dtype bfloat16 \
  --tensor-parallel-size 1 \
  --max-model-len 131072 \
  --max-num-batched-tokens 2048 \
  --max-num-seqs 16 \
  --gpu-memory-utilization 0.90 \
  --generation-config vllm
