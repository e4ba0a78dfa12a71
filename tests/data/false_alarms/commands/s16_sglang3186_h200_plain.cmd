# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/3186 (the server ran; its speed was the question), seen 2026-12-03: the plain launch on host 0.0.0.0 port 8000.
python3 -m sglang.launch_server --model-path unsloth/Meta-Llama-3.1-8B-Instruct --host 0.0.0.0 --port 8000
