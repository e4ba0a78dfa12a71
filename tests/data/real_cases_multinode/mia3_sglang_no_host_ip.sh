# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks/issues/3 (comment of 2026-08-27; seen 2026-12-03) and its fix PR #9: the worker's `docker run` of the recipe's start.sh pins NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME to the ConnectX-7 link but not SGLANG_HOST_IP, so SGLang's cross-node MessageQueue advertises the Wi-Fi address and both ranks wait in shm_broadcast.wait_until_ready() forever. Interface, addresses, image tag and model are placeholders of the shape the thread gives (`-e NCCL_SOCKET_IFNAME="${WORKER_CX7_IF}"`).
docker run -d --gpus all --network host --ipc host --name sglang-worker \
  -e NCCL_SOCKET_IFNAME=enp1s0f0np0 \
  -e GLOO_SOCKET_IFNAME=enp1s0f0np0 \
  -e TP_SOCKET_IFNAME=enp1s0f0np0 \
  -v /models:/models \
  lmsysorg/sglang:spark \
  python3 -m sglang.launch_server --model-path /models/Qwen3.8-Flash-Next --tp 2 \
    --nnodes 2 --node-rank 1 --dist-init-addr 192.168.100.10:20000 --trust-remote-code
