# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/2591 (comment of 2025-02-12), seen 2026-12-04: "How can I deploy DeepSeek V3 on 4 nodes with 14 H100s?": the four commands as posted, --tp 14 over --nnodes 4 (14 is not a multiple of 4, and DeepSeek-V3's 128 attention heads do not split 14 ways).
# node 1
python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 --nnodes 4 --node-rank 0 --trust-remote-code --enable-torch-compile --host 0.0.0.0 --port 30000 --grammar-backend xgrammar
# node 2
python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 --nnodes 4 --node-rank 1 --trust-remote-code --enable-torch-compile --grammar-backend xgrammar
# node 3
python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 --nnodes 4 --node-rank 2 --trust-remote-code --enable-torch-compile --grammar-backend xgrammar
# node 4
python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 --nnodes 4 --node-rank 3 --trust-remote-code --enable-torch-compile --grammar-backend xgrammar
