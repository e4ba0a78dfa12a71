# Reconstructed (not copied) after https://github.com/devsaturn/internvl-vllm/blob/54ee1bef47a492321f8d100785919dee880a809c/Dockerfile, seen 2026-12-04: FROM vllm/vllm-openai:latest and the shell-form ENTRYPOINT with `${PORT:-8000}`, `${MODEL_NAME:-OpenGVLab/InternVL3-14B}` and `${REVISION:+--revision "$REVISION"}`.
FROM vllm/vllm-openai:latest

ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \
    --port ${PORT:-8000} \
    --model ${MODEL_NAME:-OpenGVLab/InternVL3-14B} \
    ${REVISION:+--revision "$REVISION"}
