# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/3467 (comment of 2025-02-10), seen 2026-12-03: the reporter's run_2_nodes.sh as the maintainer's answer has it, "set --dist-init-addr the same value for both nodes. Except --node-rank 0, other parameters should be the same" (node 1's address on both).
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
      --tp 8 --dist-init-addr 10.68.27.12:5000 --nnodes 2 --node-rank 1 --trust-remote-code
