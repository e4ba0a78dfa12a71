@DIR@/venv/bin/python3 -m sglang.launch_server --model-path /m
