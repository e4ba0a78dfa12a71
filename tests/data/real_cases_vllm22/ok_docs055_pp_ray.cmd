# https://docs.vllm.ai/en/v0.5.5/serving/distributed_serving.html (vLLM docs v0.5.5: "to run API server on 8 GPUs with pipeline parallelism and tensor parallelism"; pipeline parallelism "is only supported for online serving and the ray backend for now")
vllm serve gpt2 \
    --tensor-parallel-size 4 \
    --pipeline-parallel-size 2 \
    --distributed-executor-backend ray
