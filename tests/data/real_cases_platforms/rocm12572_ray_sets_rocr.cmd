# https://github.com/vllm-project/vllm/issues/12572 -- MI250X/MI300X nodes with a Ray cluster, 2025-01: the second rank gets ROCR_VISIBLE_DEVICES=1 from Ray beside CUDA_VISIBLE_DEVICES=0,1, "HIP error: invalid device ordinal"; vLLM PR#21522 (RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 in the ROCm image) is the fix; `<model>` in the report, MODEL here
vllm serve MODEL \
    --distributed-executor-backend="ray" \
    --device="cuda" \
    --task="generate" \
    --tensor-parallel-size 2 \
    --pipeline-parallel-size 1
