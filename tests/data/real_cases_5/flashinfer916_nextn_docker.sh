# Reconstructed (not copied) after https://github.com/flashinfer-ai/flashinfer/issues/916 (2025-03-06), seen 2026-12-02: the reporter's script, as posted (the image is the script's $1, not named); the server stops with "ValueError: Invalid mode: forward_mode=<ForwardMode.TARGET_VERIFY: 6>".
docker run --gpus all --shm-size 32g -p 30000:30000 \
    -e HF_TOKEN=... \
    -v /teamspace/studios/this_studio/my-models:/model \
    --ipc=host --network=host --privileged $1 \
    python3 -m sglang.launch_server --model /model/deepseek-ai/DeepSeek-R1 \
    --tp 8 \
    --context-length 128000 \
    --trust-remote-code \
    --port 30000 \
    --speculative-algo NEXTN \
    --speculative-draft-model lmsys/DeepSeek-R1-NextN \
    --speculative-num-steps 2 \
    --speculative-eagle-topk 4 \
    --speculative-num-draft-tokens 4 \
    --enable-flashinfer-mla  \
    --host 0.0.0.0
