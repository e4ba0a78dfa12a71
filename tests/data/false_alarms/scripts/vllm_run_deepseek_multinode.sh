# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/7c73342e9980665e210e6c86d43ed1737bdd8485/examples/online_serving/run_deepseek.sh, seen 2026-12-01: the per-node steps as one file (no shebang, as the source): docker pull, `docker run -d --name ray_head` / `ray_worker` with their -e settings and `--entrypoint /bin/bash -c "ray start ..."`, `docker exec -it ray_head bash`, then VLLM_USE_V1=1 and the api_server flags.

# every node
docker pull vllm/vllm-openai:v0.8.4
huggingface-cli download deepseek-ai/deepseek-v3 --local-dir /path/to/the/huggingface/home/on/this/node

# head node
docker run -d --gpus all --privileged --ipc=host --network=host --shm-size 10.24g \
    -v /var/run/nvidia-topologyd:/var/run/nvidia-topologyd \
    -v /path/to/the/huggingface/home/on/this/node:/path/to/the/model/in/the/container \
    -e GLOO_SOCKET_IFNAME=eth0 -e NCCL_SOCKET_IFNAME=eth0 \
    -e NCCL_IB_HCA=mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1 \
    -e NCCL_IB_DISABLE=0 -e NCCL_IB_GID_INDEX=3 \
    -e CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
    -e RAY_CGRAPH_submit_timeout=600 -e RAY_CGRAPH_get_timeout=600 \
    --entrypoint /bin/bash \
    -e VLLM_HOST_IP=192.168.0.1 --name ray_head vllm/vllm-openai:0.8.4 \
    -c "ray start --block --head --port=6379 --include-dashboard=True"

# worker node
docker run -d --gpus all --privileged --ipc=host --network=host --shm-size 10.24g \
    -v /var/run/nvidia-topologyd:/var/run/nvidia-topologyd \
    -v /path/to/the/huggingface/home/on/this/node:/path/to/the/model/in/the/container \
    -e GLOO_SOCKET_IFNAME=eth0 -e NCCL_SOCKET_IFNAME=eth0 \
    -e NCCL_IB_HCA=mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1 \
    -e NCCL_IB_DISABLE=0 -e NCCL_IB_GID_INDEX=3 \
    -e CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
    -e RAY_CGRAPH_submit_timeout=600 -e RAY_CGRAPH_get_timeout=600 \
    --entrypoint /bin/bash \
    -e VLLM_HOST_IP=192.168.0.2 --name ray_worker vllm/vllm-openai:0.8.4 \
    -c "ray start --block --address=192.168.0.1:6379"

# head node again: the server runs inside the ray_head container
docker exec -it ray_head bash

VLLM_USE_V1=1 python3 -m vllm.entrypoints.openai.api_server \
    --model /path/to/the/model/in/the/container \
    --tensor-parallel-size 8 \
    --pipeline-parallel-size 2 \
    --gpu-memory-utilization 0.92 \
    --dtype auto \
    --distributed-executor-backend ray \
    --served-model-name deepseekv3 \
    --max-num-seqs 40 \
    --max-model-len 16384 \
    --enable-chunked-prefill \
    --enable-prefix-caching \
    --trust-remote-code
