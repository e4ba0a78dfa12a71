# Reconstructed (not copied) after https://github.com/deepseek-ai/DeepSeek-V3/issues/401 (seen 2026-12-02: the docker run line; the reporter has one GPU, not 8 x H200, and the machine crashed)
docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --ipc=host lmsysorg/sglang:latest \
    python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --port 30000
