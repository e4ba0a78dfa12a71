# Reconstructed (not copied) after https://github.com/radixark/miles_diffusion/pull/13 (2026-07-01, merged), seen 2026-12-04: the lmsysorg/sglang:v0.5.14-cu130 image's NCCL 2.28.9 exhausts Docker's default 64 MB /dev/shm, so running it needs --shm-size on top of the usual flags. A docker run of that image with TP 2 and neither --shm-size nor --ipc host; model and port are stand-ins.
docker run --gpus all --network host lmsysorg/sglang:v0.5.14-cu130 \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --host 0.0.0.0 --port 30000
