# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/57413: the flags the report names for its TP=4 V1 deployment
vllm serve zai-org/GLM-4.5-Air --tensor-parallel-size 4 --enable-chunked-prefill --max-num-batched-tokens 16384 --max-num-partial-prefills 4
