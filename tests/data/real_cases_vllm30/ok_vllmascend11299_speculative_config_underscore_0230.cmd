# https://github.com/vllm-project/vllm-ascend/pull/11299 (2026-07-02, vLLM 0.23.0: the MiniMax-M2 tutorial's server; a review bot says --speculative_config is refused, but vLLM's parser turns the underscores of an option's name into dashes); the model path is the tutorial's placeholder and the --additional-config object is written on one line
vllm serve /path/to/weight/MiniMax-M2 \
    --additional-config '{"enable_cpu_binding":true,"enable_fused_mc2":true,"enable_flashcomm1":true,"weight_nz_mode":true}' \
    --enable-expert-parallel \
    --tensor-parallel-size 4 \
    --data-parallel-size 4 \
    --max-num-seqs 48 \
    --max-model-len 40690 \
    --max-num-batched-tokens 16384 \
    --gpu-memory-utilization 0.85 \
    --speculative_config '{"enforce_eager": true, "method": "eagle3", "model": "/path/to/weight/Eagle3/", "num_speculative_tokens": 3}'
