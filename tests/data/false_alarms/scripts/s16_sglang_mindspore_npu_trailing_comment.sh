# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/7965b1427bcff13abdfcf2b5a44f2fcc53773a4e/ms_example/start_server.sh, seen 2026-12-03: the Ascend launch with --device npu, --model-impl mindspore and the ascend attention backend, ending on a commented-out multi-node line after the last flag.
python3 -m sglang.launch_server \
    --model-path /home/ckpt/Qwen3-8B \
    --host 0.0.0.0 \
    --port 37654 \
    --device npu \
    --model-impl mindspore \
    --attention-backend ascend \
    --tp-size 1 \
    --dp-size 1 \
    --mem-fraction-static 0.8
    #--dist-init-addr 127.0.0.1:29500 --nnodes 2 --node-rank 0 \
