# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/12450, seen 2026-12-02: node 1's launch of a 2-node deployment (Qwen3-32B, tp 4 over 2 nodes) that stays stuck.
python3 -m sglang.launch_server --model-path /data2/Qwen3-32B --tensor-parallel-size 4 --host 0.0.0.0 --port 30001 --mem-fraction-static 0.9  --nnodes 2 --node-rank 0 --dist-init-addr 10.121.129.5:30000
