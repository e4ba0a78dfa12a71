# Copied from https://github.com/msbabo-dmatrix/koyeb-test/blob/e594587a89dd396a4df6cc895cf9f4040fabb67f/Dockerfile
FROM vllm/vllm-openai:latest

ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \
    --port ${PORT:-8000} \
    --model ${MODEL_NAME:-google/gemma-2b-it} \
    ${REVISION:+--revision "$REVISION"}
