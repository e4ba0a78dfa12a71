# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/26647 (2026-05-29, closed), seen 2026-12-04: DeepSeek-V4-Flash with HiCache and the Mooncake storage backend fails at start-up: its hybrid (UnifiedRadixCache) host pool is a logical anchor without a kv_buffer, and Mooncake's host-pool registration asserts on the layout. The report's variables and model; the flags after its cut, sizes and addresses are stand-ins.
export CUDA_VISIBLE_DEVICES="0,1,2,3"
export MOONCAKE_MASTER="0.0.0.0:50058"
export MOONCAKE_DEVICE="mlx5_0,mlx5_1,mlx5_2,mlx5_3"
export MOONCAKE_PROTOCOL="rdma"
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp 4 --trust-remote-code --enable-hierarchical-cache --hicache-ratio 2 --hicache-mem-layout page_first --hicache-storage-backend mooncake --host 0.0.0.0 --port 30000
