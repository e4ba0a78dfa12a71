# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/6296, seen 2026-12-02: the per-node launch (node rank as $1) on 2 H20 nodes that hangs with DP attention and EAGLE MTP together.
python -m sglang.launch_server \
    --model-path /data2/deepseek-ai/DeepSeek-R1 \
    --port 2233 \
    --trust-remote-code \
    --dist-init-addr 10.93.75.30:1235 --nnodes 2 --node-rank $1 \
    --tp-size 16 \
    --dp-size 8 \
    --enable-dp-attention \
    --mem-fraction-static 0.7 \
    --disable-radix-cache \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 1  \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 2 \
    --speculative-draft-model-path /data2/deepseek-ai/DeepSeek-V3-0324-NextN
