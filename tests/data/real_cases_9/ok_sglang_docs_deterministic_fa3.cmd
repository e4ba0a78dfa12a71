# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/main/docs/advanced_features/deterministic_inference.md (section "Basic Usage"), seen 2026-12-02: the documented launch with the fa3 attention backend and deterministic inference.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa3 --enable-deterministic-inference
