python3 -m sglang.launch_server --model-path /m --api-key Zq7bsHq4dIxUFLxaN2KxrBeEGMb
