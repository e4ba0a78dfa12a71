# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/3314 (2025-02-05, merged), seen 2026-12-04: a correct launch: the multi-node DeepSeek-V3 start the PR's docs point to (TP 16 over two nodes, no --quantization on the FP8 checkpoint); the head's address is a stand-in; both nodes' starts are in this file.
# node 0
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0 --trust-remote-code
# node 1
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 1 --trust-remote-code
