# Copied from https://github.com/igorkirnbb/example-vllm/blob/13b00b54b46b6cba4c144681ea0840d567fd3a7b/Dockerfile
# The server is started by a RUN line, that is while `docker build` makes the image; the repository's later
# Dockerfile starts it with ENTRYPOINT from vllm/vllm-openai instead.
FROM python:3.11

RUN pip install vllm

RUN pip install 'git+https://github.com/huggingface/transformers.git'

RUN vllm serve "Qwen/Qwen2.5-VL-72B-Instruct"
