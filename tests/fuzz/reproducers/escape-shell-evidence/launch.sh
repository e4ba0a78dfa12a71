X='a]0;pwnedb'
python3 -m sglang.launch_server --model-path /m
