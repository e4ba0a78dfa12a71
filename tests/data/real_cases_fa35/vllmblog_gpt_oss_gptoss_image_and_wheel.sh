# Reconstructed (not copied) after https://blog.vllm.ai/2025/08/05/gpt-oss.html
# (2025-08 vLLM blog, "vLLM Now Supports gpt-oss": the container `vllm/vllm-openai:gptoss` with `--model`, or the
# pre-release wheel 0.10.1+gptoss and `vllm serve openai/gpt-oss-120b`)
docker run --gpus all \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:gptoss \
    --model openai/gpt-oss-20b

uv pip install --pre vllm==0.10.1+gptoss \
    --extra-index-url https://wheels.vllm.ai/gpt-oss/ \
    --extra-index-url https://download.pytorch.org/whl/nightly/cu128 \
    --index-strategy unsafe-best-match
vllm serve openai/gpt-oss-120b
