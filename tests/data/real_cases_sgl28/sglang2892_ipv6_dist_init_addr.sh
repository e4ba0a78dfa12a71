# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/2892 (2025-01/02, closed; fixed by PR#3949), seen 2026-12-04: DeepSeek-V3 on two H100 nodes of a cluster whose nodes talk IPv6: both ranks get --dist-init-addr [fdaa:ac1e:5004:5137:3ebf:20f0:b77c:136f]:8888 and hang for 20 minutes; the releases of early 2025 split the address on ':' (IPv4 only) until PR#3949 read the bracketed form. The address, model, host and port are the posted log's; both nodes' starts are in this file.
# node 0
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr '[fdaa:ac1e:5004:5137:3ebf:20f0:b77c:136f]:8888' --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 40000
# node 1
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr '[fdaa:ac1e:5004:5137:3ebf:20f0:b77c:136f]:8888' --nnodes 2 --node-rank 1 --trust-remote-code --host 0.0.0.0 --port 40000
