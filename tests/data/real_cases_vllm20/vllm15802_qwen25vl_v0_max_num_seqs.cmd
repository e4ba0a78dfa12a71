# https://github.com/vllm-project/vllm/issues/15802 (vLLM 0.8.2rc2.dev155, 2025-03-31: "Confuse about the computed max_num_seqs < 1 for Qwen2.5-VL-7B", the V0 engine with one image's worst case against 32767 tokens)
export VLLM_USE_V1=0
vllm serve \
        /workspace/dev/hf_models/Qwen2.5-VL-7B-Instruct \
        --task generate \
        --max-model-len 32767 \
        --limit-mm-per-prompt image=1,video=0 \
        --tensor-parallel-size 1 \
        --gpu-memory-utilization 0.90 \
        --max-num-seqs 8 \
        --trust-remote-code \
        --no-enable-prefix-caching \
        --enable-chunked-prefill=False \
        --disable-custom-all-reduce \
        --max-log-len 0 \
        --port 8862
