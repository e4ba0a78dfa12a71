# Reconstructed (not copied) after https://github.com/llm-d/llm-d-inference-sim/issues/533 (seen 2026-12-02: the README's docker run line, --entrypoint placed after the image name)
docker run --rm -p 8082:8082 vllm/vllm-openai-cpu:v0.19.1 \
  --entrypoint vllm launch render Qwen/Qwen2.5-0.5B-Instruct --port=8082
