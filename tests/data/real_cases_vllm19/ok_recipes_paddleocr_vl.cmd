# https://github.com/vllm-project/recipes/blob/19623e6487461293b2f885e47a4da7198ebda504/PaddlePaddle/PaddleOCR-VL.md (recipe, 2025-10: "Until v0.11.1 release, you need to install vLLM from nightly build"; a flag written twice, no multimodal cache)
vllm serve PaddlePaddle/PaddleOCR-VL \
    --trust-remote-code \
    --no-enable-prefix-caching \
    --max-num-batched-tokens 16384 \
    --no-enable-prefix-caching \
    --mm-processor-cache-gb 0
