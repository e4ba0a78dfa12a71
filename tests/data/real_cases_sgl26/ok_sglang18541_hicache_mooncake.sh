# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/18541 (2026-02-10, merged), seen 2026-12-03: the HiCache launch with a mooncake storage backend the PR ran (tp 2, Qwen3-8B), the Mooncake variables before it.
export MOONCAKE_DEVICE="mlx5_bond_0"
export MOONCAKE_MASTER="10.13.3.244:50051"
export MOONCAKE_TE_META_DATA_SERVER="P2PHANDSHAKE"
export MOONCAKE_PROTOCOL="rdma"
export MOONCAKE_GLOBAL_SEGMENT_SIZE=0
export LOCAL_HOSTNAME="10.13.3.244"

python3 -m sglang.launch_server \
  --model-path /root/.cache/modelscope/hub/models/Qwen/Qwen3-8B \
  --mem-fraction-static 0.17 \
  --tp 2 \
  --port 8192 \
  --host 0.0.0.0 \
  --max-total-tokens 131076 \
  --chunked-prefill-size 16384 \
  --page-size 64 \
  --enable-hierarchical-cache \
  --hicache-ratio 2 \
  --hicache-io-backend kernel \
  --hicache-mem-layout page_head \
  --hicache-storage-backend mooncake \
  --hicache-storage-prefetch-policy timeout \
  --hicache-write-policy write_through \
  --hicache-storage-backend-extra-config '{"tp_lcm_size":2}'
