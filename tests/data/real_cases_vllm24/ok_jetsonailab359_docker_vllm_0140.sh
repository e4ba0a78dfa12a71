# https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/pull/359 (2026-03-11: "pin the VLLM container tag to 0.14.0, to run cosmos-reason2 on Thor"; the command the PR changes to; MODEL_PATH as the page sets it before)
MODEL_PATH=/home/user/models/cosmos-reason2-8b
sudo sysctl -w vm.drop_caches=3

sudo docker run -it --rm --runtime=nvidia --network host \
  -v $MODEL_PATH:/models/cosmos-reason2-8b:ro \
  ghcr.io/nvidia-ai-iot/vllm:0.14.0-r38.3-arm64-sbsa-cu130-24.04 \
  vllm serve /models/cosmos-reason2-8b \
    --served-model-name nvidia/cosmos-reason2-8b-fp8 \
    --max-model-len 8192 \
    --gpu-memory-utilization 0.8 \
    --reasoning-parser qwen3 \
    --media-io-kwargs '{"video": {"num_frames": -1}}' \
    --enable-prefix-caching \
    --port 8000
