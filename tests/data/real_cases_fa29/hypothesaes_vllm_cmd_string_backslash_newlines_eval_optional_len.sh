#!/bin/bash
# Reconstructed (not copied) after https://github.com/Lhongpei/myHypotheSAEs/blob/647dbce5da05300f46fa8bd4b99b8344db25825c/serve.sh
# A research project's vLLM script (2025): the command built in a double-quoted string continued by backslashes (one
# right after a value), an optional length appended with `+=` when set, echoed, then `eval "${CMD}"`; Qwen3-32B at TP 4 on
# GPUs 4-7; kept: the whole script.
export NCCL_NVLS_ENABLE=0  
export CUDA_MODULE_LOADING=EAGER
export CUDA_VISIBLE_DEVICES="4,5,6,7"

MODEL="Qwen/Qwen3-32B"
HOST="0.0.0.0"
PORT="1212"
MAX_MODEL_LEN="" 
TENSOR_PARALLEL=4

# 构建基础命令
CMD="vllm serve ${MODEL} \
    --host ${HOST} \
    --port ${PORT} \
    --tensor-parallel-size ${TENSOR_PARALLEL}\
    "

if [ -n "${MAX_MODEL_LEN}" ]; then 
    CMD+=" --max-model-len ${MAX_MODEL_LEN}"
fi

echo "${CMD}"
eval "${CMD}"
