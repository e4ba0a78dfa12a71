# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/22916 (2026-04-16, merged), seen 2026-12-04: a correct launch: the PR's PD pair on one node (prefill on GPUs 4,5, decode on 6,7) with Mooncake, its shared deterministic flags and routed-expert return; the decode side's ports and devices follow the prefill's pattern (stand-ins).
COMMON_FLAGS=(
  --model-path Qwen/Qwen3-30B-A3B
  --host 127.0.0.1
  --trust-remote-code
  --attention-backend fa3
  --tp 2
  --enable-deterministic-inference
  --disable-overlap-schedule
  --disable-cuda-graph
  --disable-radix-cache
  --enable-return-routed-experts
  --mem-fraction-static 0.9
)
CUDA_VISIBLE_DEVICES=4,5 python -m sglang.launch_server "${COMMON_FLAGS[@]}" --port 28180 --disaggregation-mode prefill --disaggregation-transfer-backend mooncake --disaggregation-bootstrap-port 28580 --disaggregation-ib-device mlx5_6,mlx5_7 &
CUDA_VISIBLE_DEVICES=6,7 python -m sglang.launch_server "${COMMON_FLAGS[@]}" --port 28280 --disaggregation-mode decode --disaggregation-transfer-backend mooncake --disaggregation-ib-device mlx5_6,mlx5_7 &
wait
