# Reconstructed (not copied) after https://github.com/jyngjeon/multiagentsdebate/blob/641577e01b61e933576a73fc9e60fb9b45cecd7d/vllm-serve.sh, seen 2026-12-03: `nohup vllm serve Qwen/Qwen3-14B ... > logs/... 2>&1 &` with tp 4, bfloat16 and its length.
nohup vllm serve Qwen/Qwen3-14B \
    --tensor-parallel-size 4 \
    --host 0.0.0.0 \
    --port 8000 \
    --dtype bfloat16 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 16384 > logs/vllm_server3.log 2>&1 &
