# https://github.com/vllm-project/vllm/pull/24263 (2025-09-06 comment: the PR's branch started with this command, "Started server process"; release not named)
VLLM_WORKER_MULTIPROC_METHOD=spawn \
VLLM_LOGGING_LEVEL=DEBUG \
vllm serve Intel/Seed-OSS-36B-Instruct-int4-AutoRound \
    --enable-auto-tool-choice \
    --tool-call-parser seed_oss \
    --trust-remote-code \
    --tensor-parallel-size 2 \
    --dtype bfloat16 \
    --max_model_len 68000 \
    --port 1234 \
    --served-model-name seed-oss \
    --gpu-memory-utilization 0.85 \
    --reasoning-parser seed_oss
