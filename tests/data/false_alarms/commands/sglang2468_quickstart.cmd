# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/2468 (the quick-start launch; the server starts and listens, the warm-up request fails behind a proxy), seen 2026-12-02: the launch with its flags, re-typed as one line.
python -m sglang.launch_server --model-path mistralai/Mistral-7B-Instruct-v0.1 --port 30000 --host 0.0.0.0
