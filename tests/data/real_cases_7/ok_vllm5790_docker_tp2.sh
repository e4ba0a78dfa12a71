# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/5790 (seen 2026-12-02: a maintainer's docker run line that runs on a 4-GPU machine; the report's failure came from --engine-use-ray)
docker run --ipc=host --gpus all vllm/vllm-openai:v0.5.0.post1 -tp 2
