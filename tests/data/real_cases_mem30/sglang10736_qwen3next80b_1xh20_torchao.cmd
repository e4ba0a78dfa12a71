# source: https://github.com/sgl-project/sglang/issues/10736 (2025-09-22) "how to run Qwen3-Next-80B-A3B in a single H20 GPU"
# GPU: 1x H20 ("GPU 0 has a total capacity of 95.08 GiB"). Release: lmsysorg/sglang:latest of September 2025. The report:
# "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB ... this process has 93.27 GiB memory in use" while loading.
# Model config: models/qwen3-next-80b-a3b (bf16; a copy of tests/data/models/qwen3-next-80b-a3b).
docker run --gpus all -d --shm-size 96g --restart always -e NVIDIA_DISABLE_REQUIRE=1 -p 30000:30000 -v /data/hugface:/root/.cache/huggingface --ipc=host lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path qwen3-next-80b --host 0.0.0.0 --trust-remote-code --port 30000 --torchao-config int8dq --disable-cuda-graph
