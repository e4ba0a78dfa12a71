# Copied from https://github.com/Fluder-Paradyne/vllm_inference/blob/07e8d061eac33fb4572f2876b0dee640635701aa/Dockerfile
# ARG model / ARG gpu (given with --build-arg) are kept by ENV and read by the shell-form CMD at start.
FROM nvcr.io/nvidia/cuda:11.8.0-devel-ubuntu22.04

RUN apt update && apt upgrade -y
RUN apt install -y python3 python3-pip git

RUN pip install --upgrade --no-cache-dir torch==2.0.1+cu118 torchvision==0.15.2+cu118 torchaudio==2.0.2 --index-url https://download.pytorch.org/whl/cu118
RUN pip install vllm

ARG model
ARG gpu
ENV model=$model
ENV gpu=$gpu

CMD python -m vllm.entrypoints.api_server --model $model --tensor-parallel-size $gpu
