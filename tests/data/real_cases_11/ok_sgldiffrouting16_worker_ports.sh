# Reconstructed (not copied) after https://github.com/zhaochenyang20/sglang-diffusion-routing/pull/16 (README.md at commit eef1d43, 2026-02-22), seen 2026-12-02: the two diffusion workers after the PR moved the second to --port 30002 (30001 is the first worker's ZMQ port).
# If connect to HuggingFace is not allowed
# You can set the environment variable SGLANG_USE_MODELSCOPE=TRUE

# worker 1
CUDA_VISIBLE_DEVICES=0 sglang serve \
    --model-path Qwen/Qwen-Image \
    --num-gpus 1 \
    --host 127.0.0.1 \
    --port 30000

# worker 2
CUDA_VISIBLE_DEVICES=1 sglang serve \
    --model-path Qwen/Qwen-Image \
    --num-gpus 1 \
    --host 127.0.0.1 \
    --port 30002
