# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/6370 (maintainer's comment of 2025-05-17), seen 2026-12-04: a correct launch: the maintainer's replacement for a router launch over two nodes: on each machine two TP-4 servers on GPUs 0-3 and 4-7 (--base-gpu-id), and one router in front of the four; the addresses are the comment's placeholders made concrete.
python3 -m sglang.launch_server --model-path ./Qwen3/Qwen3-235B-A22B --tp 4 --port 30001 --trust-remote-code --base-gpu-id 0 &
python3 -m sglang.launch_server --model-path ./Qwen3/Qwen3-235B-A22B --tp 4 --port 30002 --trust-remote-code --base-gpu-id 4 &
python -m sglang_router.launch_router --worker-urls http://10.0.0.1:30001 http://10.0.0.1:30002 http://10.0.0.2:30001 http://10.0.0.2:30002 --port 40000
