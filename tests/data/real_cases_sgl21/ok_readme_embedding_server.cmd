# Reconstructed (not copied) after https://github.com/hieum98/state-aware-rag/blob/main/README.md ("Minimal quick start", the embedding server), seen 2026-12-03: a correct launch.
python -m sglang.launch_server --model-path Qwen/Qwen3-Embedding-4B --is-embedding --host 0.0.0.0 --port 8000 --dtype bfloat16
