# Reconstructed (not copied) after https://github.com/radixark/miles_diffusion/pull/13 (2026-07-01, merged), seen 2026-12-04: a correct launch: the lmsysorg/sglang:v0.5.14-cu130 image run with --shm-size on top of the usual flags, as the PR says it needs; model and port are stand-ins.
docker run --gpus all --network host --shm-size 32g lmsysorg/sglang:v0.5.14-cu130 \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --host 0.0.0.0 --port 30000
