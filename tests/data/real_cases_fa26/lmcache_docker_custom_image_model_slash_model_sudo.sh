#!/bin/bash
# Reconstructed (not copied) after https://github.com/hyunnnchoi/vllm-deployments/blob/48008572d9c8f11a4cdb575c747ed0db368983ab/models/deepseek-r1/launch-vllm-with-lmcache.sh, seen 2026-12-04: `sudo docker run -d` of a locally built image (weights baked in at /model) with LMCACHE_CONFIG_FILE and PYTHONHASHSEED, `--model /model`, TP 4, LMCacheConnectorV1 kv_both, then a wait and `docker logs -f | tee` (kept: the structure and the flags; the Korean comments translated)

# absolute paths
LOG_DIR=/home/xsailor6/hmchoi/vllm-deployments/models/deepseek-r1/vllm_logs
CACHE_DIR=/home/xsailor6/hmchoi/lmcache_storage

mkdir -p $LOG_DIR
mkdir -p $CACHE_DIR

LOG_FILE=$LOG_DIR/vllm-deepseek-r1-$(date +%Y%m%d-%H%M%S).log

echo "Stopping and removing existing container..."
sudo docker stop vllm-deepseek-r1 2>/dev/null
sudo docker rm vllm-deepseek-r1 2>/dev/null

echo "Starting vLLM container..."
sudo docker run -d --name vllm-deepseek-r1 \
  --gpus all --ipc=host -p 8000:8000 \
  -e VLLM_LOGGING_LEVEL=DEBUG \
  -e LMCACHE_CONFIG_FILE=/config_dir/lmcache_config.yaml \
  -e PYTHONHASHSEED=0 \
  -v /home/xsailor6/hmchoi/vllm-deployments/models/deepseek-r1:/config_dir:ro \
  -v /home/xsailor6/hmchoi/lmcache_storage:/lmcache \
  potato4332/vllm-deepseek-r1:v0.0.1 \
  --model /model \
  --served-model-name DeepSeek-R1-Distill-Qwen-32B \
  --tensor-parallel-size 4 \
  --gpu-memory-utilization 0.8 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'

echo "Waiting for container to start..."
sleep 5

if sudo docker ps | grep -q vllm-deepseek-r1; then
  echo "Container started successfully!"
  sudo docker logs -f vllm-deepseek-r1 2>&1 | tee $LOG_FILE
else
  echo "Failed to start container."
  sudo docker logs vllm-deepseek-r1 2>&1 | tee $LOG_FILE
  exit 1
fi

