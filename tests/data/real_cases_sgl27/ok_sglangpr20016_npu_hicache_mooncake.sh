# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/20016 (2026-03-06, merged), seen 2026-12-04: a correct launch: the PR's Ascend prefill server (TP 8, DP 2, DP attention) with PD over Mooncake and HiCache's Mooncake storage backend on the kernel_ascend I/O backend; addresses are the PR's placeholders made concrete, the extra config after its cut is a stand-in.
source /usr/local/Ascend/ascend-toolkit/latest/bin/setenv.bash
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True
export HCCL_INTRA_ROCE_ENABLE=1
export GLOO_SOCKET_IFNAME=enp61s0f0
export HCCL_SOCKET_IFNAME=enp61s0f0
MOONCAKE_PROTOCOL="ascend" \
MOONCAKE_LOCAL_HOSTNAME=192.168.1.10 \
MOONCAKE_MASTER=192.168.1.10:50051 \
python -m sglang.launch_server \
--model-path /data/deepseek-r1-awq/ \
--trust-remote-code \
--mem-fraction-static 0.85 \
--tp-size 8 \
--dp-size 2 \
--disaggregation-mode prefill \
--disaggregation-transfer-backend mooncake \
--host 0.0.0.0 \
--port 8000 \
--chunked-prefill-size 8192 \
--enable-p2p-check \
--device npu \
--enable-dp-attention \
--disable-cuda-graph \
--attention-backend ascend \
--nnodes 1 \
--node-rank 0 \
--load-balance-method round_robin \
--page-size 128 \
--enable-cache-report \
--enable-hierarchical-cache \
--hicache-mem-layout page_first_kv_split \
--hicache-io-backend kernel_ascend \
--hicache-write-policy write_through \
--hicache-storage-prefetch-policy wait_complete \
--hicache-storage-backend mooncake \
--hicache-storage-backend-extra-config '{"prefetch_threshold": 256}'
