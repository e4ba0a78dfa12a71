# Copied from https://github.com/gracee3/docker-local-inference/blob/16925c5d861c526815ec3333a0f170a477f71257/Dockerfile
FROM vllm/vllm-openai:0.15.1-cu130

ENV PYTHONUNBUFFERED=1

RUN pip install --no-cache-dir --upgrade "transformers>=4.57.0,<5"

EXPOSE 8000

ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]
CMD ["--model", "/model", "--host", "0.0.0.0", "--port", "8000"]
