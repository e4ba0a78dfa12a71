# source: https://github.com/sgl-project/sglang/issues/8833 (2025-08-06, a comment in "[Tracking] OpenAI gpt-oss Day 0 Support")
# GPU: H100 80 GB (four exposed, --tp 2 uses two). Release: SGLang 0.4.10.post2 (the image tag), not bundled.
# The report: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.98 GiB. GPU 1 has a total capacity of 79.10 GiB ...
# 76.93 GiB is allocated by PyTorch"; the answer: "You're running `--tp 2` for a 120B BF16 model ... Switching to `--tp 4`".
# Model config: models/gpt-oss-120b-bf16 (tests/data/models/gpt-oss-120b without its mxfp4 quantization_config: lmsys/gpt-oss-120b-bf16 is the bf16 conversion).
docker run -d --gpus '"device=1,2,3,4"' --network=host -v /data/.cache/huggingface:/root/.cache/huggingface --name sglang_gpt -it --rm -e SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 --ipc=host lmsysorg/sglang:v0.4.10.post2-cu126-1 python3 -m sglang.launch_server --model-path lmsys/gpt-oss-120b-bf16 --tp 2 --trust-remote-code --mem-fraction-static 0.7 --host 0.0.0.0 --port 40000
