#!/bin/bash
# Reconstructed (not copied) after https://github.com/zejunchen-zejun/ATOMModelBackendValidationHelper/blob/039d097e3e8a6c636a7033acb9ca7807e71669c3/sgl/test.235B.tp8.ep8.sh: the script as posted (SGLang with --model-impl atom, Qwen3-235B FP8 TP 8 EP 8, page size 1024, piped to tee in the background)
echo "run sgl"

rm -rf /root/.cache/

export ATOM_ENABLE_QK_NORM_ROPE_CACHE_QUANT_FUSION=1

# quick allreduce
export AITER_QUICK_REDUCE_QUANTIZATION=INT4

model_path=/shared/data/amd_int/models/Qwen3-235B-A22B-Instruct-2507-FP8

echo "Starting server with model: $model_path"

python3 -m sglang.launch_server \
    --model-path $model_path \
    --host localhost \
    --port 8000 \
    --trust-remote-code \
    --tensor-parallel-size 8 \
    --expert-parallel-size 8 \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.8 \
    --page-size 1024 \
    --model-impl atom \
    2>&1 | tee log.serve.log &

# --disable-cuda-graph \
# --cuda-graph-max-bs 128 \