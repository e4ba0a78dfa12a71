# https://github.com/vllm-project/vllm-ascend/pull/15660 (2026-09-03, the Spark-X2.5 tutorial's server; a review bot called --generation-config "not a valid command-line option", the author: "--generation-config is a supported vllm serve option ... vllm as the value that skips the model generation config"; MODEL_PATH as the tutorial sets it before)
MODEL_PATH=/root/.cache/Spark-X2.5
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
