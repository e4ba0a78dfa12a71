# https://github.com/vllm-project/vllm/issues/14117 (a vLLM build of 2025-02-28 from source, between 0.7.3 and 0.8.0: "PP > 1 with speculative decoding enabled reports an unsupported error"; DeepSeek-R1's MTP with --num-speculative-tokens)
vllm serve /vllm-workspace/DeepSeek-R1/ \
        --host 0.0.0.0 \
        --port 8081 \
        --tensor-parallel-size 8 \
        --pipeline-parallel-size 2 \
        --gpu-memory-utilization 0.8 \
        --max-num-seqs 16 \
        --max-model-len 32768 \
        --served-model-name deepseek_r1 \
        --device cuda \
        --quantization fp8 \
        --trust-remote-code \
        --num-speculative-tokens 1
