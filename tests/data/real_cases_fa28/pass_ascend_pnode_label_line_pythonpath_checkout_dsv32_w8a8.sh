节点1：
# Reconstructed (not copied) after https://github.com/hhhh1252023/pass/blob/d34bb1d63c1e0264665c8232f0fc3ad05500eb23/cp/pnode.sh
# An Ascend engineer's first-node launch (2025-12): a label line "节点1：" ("node 1:") that bash runs as a command
# not found and goes on, CANN environment scripts sourced, SGLang from a source checkout on PYTHONPATH
# (upstream of 2025-12-03), DeepSeek-V3.2-Exp W8A8 over two nodes at TP 32 with DeepEP and --enable-sp; kept:
# the whole script (the header comment moved below the label line, which it follows in the file).
export cann_path=/usr/local/Ascend/ascend-toolkit/latest
source /usr/local/Ascend/driver/bin/setenv.bash
source ${cann_path}/../set_env.sh
source ${cann_path}/../../nnal/atb/set_env.sh
source ${cann_path}/opp/vendors/customize/bin/set_env.bash
export PYTHONPATH=/data/dzc/code/upstream1203/sglang/python:$PYTHONPATH
export SGLANG_SET_CPU_AFFINITY=1
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True
export STREAMS_PER_DEVICE=32

#export DEEP_NORMAL_MODE_USE_INT8_QUANT=1
export HCCL_BUFFSIZE=1536

export HCCL_OP_EXPANSION_MODE=AIV
P_HOST_IP=('192.168.0.60' '192.168.0.234')
export ASCEND_MF_STORE_URL="tcp://192.168.0.60:30110"
export HCCL_SOCKET_IFNAME="enp23s0f3"
export GLOO_SOCKET_IFNAME="enp23s0f3"

#for i in "${!P_HOST_IP[@]}";
#do
 python -m sglang.launch_server \
--host 192.168.0.184 \
 --port 8001 \
--attention-backend ascend \
--device npu \
--trust-remote-code \
--dist-init-addr 192.168.0.60:5000 \
--nnodes 2 \
--node-rank 0 \
--tp-size 32 \
--dp-size 1 \
--cuda-graph-bs 1 2 4 8 16 32 64 128 \
--enable-sp \
--skip-server-warmup \
--quantization w8a8_int8 \
--model-path /data/models/DeepSeek-V3.2-Exp-W8A8 \
        --mem-fraction-static 0.78 \
--chunked-prefill-size 327680 \
--context-length 68000 \
--max-prefill-tokens 68000 \
--max-total-tokens 68000 \
--moe-a2a-backend deepep \
--deepep-mode auto \
--disable-radix-cache 
#done
