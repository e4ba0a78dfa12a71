#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/jyothisambolu/InferenceMAX/blob/af4ccd03ff196e2162b962edc9cefc484d0cabff/benchmarks/gptoss_fp4_h100_docker.sh, seen 2026-12-04: the comment listing the variables the caller must set, the config.yaml written by `cat > config.yaml << EOF`, `set -x`, and `vllm serve $MODEL` with `--port=$PORT`, `--tensor-parallel-size=$TP`, `--max-num-seqs=$CONC` and `--config=config.yaml`.

# set by the caller: HF_TOKEN HF_HUB_CACHE MODEL MAX_MODEL_LEN TP CONC

cat > config.yaml << EOF
async-scheduling: true
no-enable-prefix-caching: true
cuda-graph-sizes: 2048
max-num-batched-tokens: 8192
max-model-len: 10240
EOF

export PYTHONNOUSERSITE=1

set -x
vllm serve $MODEL --host=0.0.0.0 --port=$PORT \
--config=config.yaml \
--gpu-memory-utilization=0.9 \
--tensor-parallel-size=$TP \
--max-num-seqs=$CONC  \
--disable-log-requests
