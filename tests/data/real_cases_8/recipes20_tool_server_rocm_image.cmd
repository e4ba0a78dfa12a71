# Reconstructed (not copied) after https://github.com/vllm-project/recipes/issues/20 (2025-08-10, description, image rocm/vllm-dev:open-mi300-08052025), seen 2026-12-02: the command exactly as posted (the model elided as "..."); "vllm: error: unrecognized arguments: --tool-server demo": that image's vLLM build has no --tool-server.
vllm serve ... --tool-server demo
