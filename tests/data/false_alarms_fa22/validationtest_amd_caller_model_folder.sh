# Reconstructed (not copied) after https://github.com/rxsalad/validation-test/blob/6883fda39bc17658cafed53b26115a324aa9ac5f/amd-vllm/start.sh, seen 2026-12-04: `mkdir -p /result/$FOLDER`, `VLLM_USE_V1=1 vllm serve $MODEL` with tp 8 and float16 in the background, logging to a file named from $FOLDER and ${NODE_NAME}, then the client.
mkdir -p /result/$FOLDER

VLLM_USE_V1=1 vllm serve $MODEL \
 --enforce-eager \
 --host 0.0.0.0 \
 --port 8000 \
 --tensor-parallel-size 8 \
 --seed 1024 \
 --dtype float16 \
 --max-model-len 10000 \
 --max-num-batched-tokens 10000 \
 --max-num-seqs 256 \
 --trust-remote-code \
 --gpu-memory-utilization 0.9 > /result/$FOLDER/vllm_server_${NODE_NAME}.log 2>&1 &

python3 test.py > /result/$FOLDER/client_${NODE_NAME}.log 2>&1
