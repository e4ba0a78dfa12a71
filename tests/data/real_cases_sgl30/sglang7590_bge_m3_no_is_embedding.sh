# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/7590 (2025-06-27, closed), seen 2026-12-05: BAAI/bge-m3 (an XLM-RoBERTa embedding model) started with the blackwell image on an RTX 5090 without --is-embedding; the first POST /v1/embeddings kills the container. The docker command as posted.
docker run -d --gpus '"device=3"' \
  --shm-size 32g \
  -v /data/docker/vllm/models/BAAI/bge-m3:/mnt/llms/models/BAAI/bge-m3 \
  -p 18000:8000 \
  lmsysorg/sglang:blackwell \
  python3 -m sglang.launch_server \
    --model-path /mnt/llms/models/BAAI/bge-m3 \
    --host 0.0.0.0 \
    --port 8000 \
    --mem-fraction-static 0.8
