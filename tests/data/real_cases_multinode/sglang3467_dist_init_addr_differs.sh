# Copied from https://github.com/sgl-project/sglang/issues/3467 (2025-02-10; seen 2026-12-03): the reporter's run_2_nodes.sh, both nodes' commands in one file; node 2 gives another --dist-init-addr (10.0.1.104:5000, its own address) than node 1 (10.68.27.12:5000), and both stop at init. The maintainer: "set --dist-init-addr the same value for both nodes. Except --node-rank 0, other parameters should be the same."
# node 1
/data/miniconda3/envs/fffan_sglang/bin/python \
            -m sglang.launch_server \
            --model-path /data/fffan/models/DeepSeek-R1-Distill-Llama-70B \
            --tp 8 --dist-init-addr 10.68.27.12:5000 --nnodes 2 --node-rank 0 --trust-remote-code \
            --host 0.0.0.0 --port 3000

# node 2
/data/miniconda3/envs/fffan_sglang/bin/python \
      -m sglang.launch_server \
      --model-path /data/fffan/models/DeepSeek-R1-Distill-Llama-70B \
      --tp 8 --dist-init-addr 10.0.1.104:5000 --nnodes 2 --node-rank 1 --trust-remote-code
