# Copied from https://github.com/igorkirnbb/example-vllm/blob/5923fa49a6b6d1946c2a433546c2c1171c08dce7/Dockerfile.bundled_model
# (its opening comment shortened): MODEL_NAME is an ARG with an empty default that `docker build --build-arg`
# gives, kept in the image by ENV.
FROM vllm/vllm-openai:latest

ARG MODEL_NAME=
ARG REVISION="main"

ENV HF_HOME=/workspace/model-cache
ENV HF_HUB_ENABLE_HF_TRANSFER=1
ENV MODEL_NAME=$MODEL_NAME

COPY ./model_downloader.sh /workspace/model_downloader.sh

RUN pip install 'git+https://github.com/huggingface/transformers.git'

RUN pip install --no-cache-dir huggingface_hub[cli,hf_transfer]

RUN --mount=type=secret,id=hf_token \
    HF_TOKEN=$(cat /run/secrets/hf_token) bash /workspace/model_downloader.sh

ENV HF_HUB_OFFLINE=1

ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server \
    --model $MODEL_NAME \
    --gpu-memory-utilization ${GPU_MEMORY_LIMIT:-0.95} \
    ${MAX_MODEL_LEN:+--max-model-len "$MAX_MODEL_LEN"}
