# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/30642 (comment of 2026-07-15, lmsysorg/sglang:v0.5.15-cu130, 2x H20), seen 2026-12-03: GLM-5.2-FP8 with tp16/ep16/dp16 serves, "If dp=2 is configured, an error will be reported"; the PR fixes the num_splits (b+1) crash of DP attention with speculative decode (a bug at that release). The `docker run` options the comment elides ("...") are left out; the flags after --page-size are cut in the comment and end here.
docker run -d \
  --name glm52-ep16-node0 \
  --restart unless-stopped \
  --gpus all \
  --network host \
  --ipc host \
  --privileged \
  -v /mnt/models:/mnt/models:ro \
  -v /mnt/sglang-cache:/root/.cache \
  docker.m.daocloud.io/lmsysorg/sglang:v0.5.15-cu130 \
  python3 -m sglang.launch_server \
    --model-path /mnt/models/GLM-5.2-FP8 \
    --served-model-name glm-5.2-fp8 \
    --tp 16 \
    --dp 2 \
    --ep 16 \
    --enable-dp-attention \
    --enable-dp-lm-head \
    --moe-a2a-backend deepep \
    --deepep-mode auto \
    --moe-runner-backend deep_gemm \
    --nnodes 2 \
    --node-rank 0 \
    --dist-init-addr 10.26.0.18:50000 \
    --dist-timeout 1800 \
    --host 0.0.0.0 \
    --port 30000 \
    --context-length 500000 \
    --max-running-requests 100 \
    --mem-fraction-static 0.85 \
    --chunked-prefill-size 8192 \
    --cuda-graph-max-bs-decode 16 \
    --page-size 64
