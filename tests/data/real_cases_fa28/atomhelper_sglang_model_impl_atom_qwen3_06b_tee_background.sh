#!/bin/bash
# Reconstructed (not copied) after https://github.com/zejunchen-zejun/ATOMModelBackendValidationHelper/blob/4d06fc21ff5c27624d6edf3bdc1015f40a8f112c/sgl/test.0.6B.tp1.sh
# An AMD engineer's validation script for SGLang's ATOM model backend (ROCm, 2026): `--model-impl atom`,
# an fp8_e4m3 KV cache, 10% of the GPU's memory, no CUDA graphs, the server piped to tee in the background;
# kept: the whole script (the model directory shortened).
echo "run sgl"
export CUDA_VISIBLE_DEVICES=7

rm -rf /root/.cache/

model_path=/data/models/Qwen3-0.6B

echo "Starting server with model: $model_path"

python3 -m sglang.launch_server \
    --model-path $model_path \
    --host localhost \
    --port 8000 \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --tensor-parallel-size 1 \
    --mem-fraction-static 0.1 \
    --model-impl atom \
    --disable-cuda-graph \
    2>&1 | tee log.serve.log &
