# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/46169 (vllm-openai-rocm:v0.23.0), seen 2026-12-02: the reporter's docker run (HF token as posted, redacted); vLLM starts without error but never serves.
docker run --rm -it \
        --group-add=video \
        --cap-add=SYS_PTRACE \
        --security-opt seccomp=unconfined \
        --device /dev/kfd \
        --device /dev/dri \
        -v /data/vllm/hf:/root/.cache/huggingface \
        -p 3456:3456 \
        --ipc=host \
        --env HF_TOKEN=hf_XXXXXX \
        vllm/vllm-openai-rocm:v0.23.0 \
        Qwen/Qwen3.5-2B \
        --port 3456 \
        --language-model-only
