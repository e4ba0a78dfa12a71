HF_TOKEN=Zq7bsHq4dIxUFLxaN2KxrBeEGMb
python3 -m sglang.launch_server --model-path /m
