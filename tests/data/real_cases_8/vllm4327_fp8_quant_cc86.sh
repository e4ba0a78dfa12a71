# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/4327 (2024-04, description), seen 2026-12-02: the launch; the title's error "The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current capability: 86." (the GPUs, compute capability 8.6, are not in the command; no release is named).
CUDA_VISIBLE_DEVICES=2,6,1,0 python -O -u -m vllm.entrypoints.openai.api_server \
        --host=127.0.0.1 \
        --port=8090 \
        --model=llama3-70B/ \
        --tokenizer=meta-llama/Meta-Llama-3-70B-Instruct \
        --tensor-parallel-size=4 \
        --quantization fp8 \
        --dtype half
