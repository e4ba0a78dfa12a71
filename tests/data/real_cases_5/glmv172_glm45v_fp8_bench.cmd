# Reconstructed (not copied) after https://github.com/zai-org/GLM-V/issues/172 (2025-09-08, vllm/vllm-openai:v0.10.1.1 with transformers 4.55.0 GLM-4.5V preview installed inside), seen 2026-12-02: the server launch; errors under `vllm bench serve` load.
vllm serve zai-org/GLM-4.5V-FP8 \
     --tensor-parallel-size 4 \
     --tool-call-parser glm45 \
     --reasoning-parser glm45 \
     --enable-auto-tool-choice \
     --allowed-local-media-path / \
     --media-io-kwargs '{"video": {"num_frames": -1}}' \
     --port 8888 \
     --gpu-memory-utilization 0.95 \
     --no-enable-prefix-caching
