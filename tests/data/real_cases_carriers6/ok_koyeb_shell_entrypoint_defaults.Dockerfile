# Copied from https://github.com/koyeb/example-vllm/blob/7a5129253752f90fb545d90f509701db683e4abb/Dockerfile
# A shell-form ENTRYPOINT: the container's /bin/sh expands ${MODEL_NAME:-...} and ${REVISION:+...} at start.
FROM vllm/vllm-openai:latest

ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \
    --model ${MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct} \
    ${REVISION:+--revision "$REVISION"}
