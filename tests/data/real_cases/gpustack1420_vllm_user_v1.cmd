# Reconstructed (not copied) after https://github.com/gpustack/gpustack/issues/1420, seen 2026-12-02: the command line as the report shows it (GPUStack v0.5.1 starts vLLM inside the container).
docker run -d --restart=unless-stopped -e VLLM_USER_V1=1 -e NCCL_DEBUG=INFO --gpus all --net host --ipc=host gpustack/gpustack
