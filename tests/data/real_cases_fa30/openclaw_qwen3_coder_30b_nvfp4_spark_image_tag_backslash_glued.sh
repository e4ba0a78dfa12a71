# Reconstructed (not copied) after https://github.com/LePhanFF/MyOpenclawAgent/blob/3de215c035ed08fb8baa558208c0a1b9c1dbf191/qwen3-80b-a3b/vl-32code.sh: the script as posted (a DGX Spark image, the image name glued to its line's backslash)
# 1. Cleanup
docker stop vllm_qwen && docker rm vllm_qwen

docker pull  scitrera/dgx-spark-vllm:0.13.0-t4:latest

# 2. Launch with the Blackwell Environment Shims
docker run -d \
  --gpus '"device=0"' \
  --shm-size=16g \
  -p 8356:8356 \
  -v "$HOME/.cache/huggingface:/root/.cache/huggingface" \
  scitrera/dgx-spark-vllm:0.13.0-t4\
  vllm serve \
        "GAlex535/Qwen3-Coder-30B-A3B-Instruct-NVFP4" \
        --port 8356 \
        --max-model-len 256000  \
        --gpu-memory-utilization 0.90 \
        --trust-remote-code \
        --enable-auto-tool-choice \
        --tool-call-parser qwen3_coder
