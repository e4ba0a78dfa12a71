# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/18986 (2025-05-31; fixed by vllm PR #18991), seen 2026-12-02: the reporter's node script as posted (the platform sets NODE_WORKER_HOSTS, NODE_WORKER_0_HOST, NODE_WORKER_0_PORT and NODE_ID; the report does not show their values). vLLM built its data-parallel handshake URL as tcp://IP:PORT without brackets for an IPv6 address: a bug of the release, fixed by the PR.
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
export VLLM_USE_V1="1"

#export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')
#export HOST_IP=$(hostname -I | awk '{print $1}')
IFS=',' read -ra HOSTS <<< "$NODE_WORKER_HOSTS"
echo "${HOSTS[0]}"

cd /data/models

addr="${HOSTS[0]}"

if [[ $addr =~ ^\[(.+)\]:([0-9]+)$ ]]; then
  ip="${BASH_REMATCH[1]}"
  port="${BASH_REMATCH[2]}"
else
  echo "输入格式不对，无法解析：$addr" >&2
  exit 1
fi

dp_address="tcp://[${ip}]:${port}"   # <-- exactly one pair of brackets here

echo "GPU‐node IP   = ${ip}"
echo "GPU‐node PORT = ${port}"
echo "DP_ADDRESS    = ${dp_address}"

# 公共参数
BASE_OPTS=(
    Qwen2.5-32B-Instruct
    --host "::"
    --port 8000
    --served-model-name qwen2.5-32b
    --tensor-parallel-size 8
    --max-num-seqs 256
    --rope-scaling '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'
    --max-model-len 131072
    --data-parallel-size 2
    --data-parallel-size-local 1
    --data-parallel-address "${NODE_WORKER_0_HOST}"
    --data-parallel-rpc-port "${NODE_WORKER_0_PORT}"
)
#     
echo "${BASE_OPTS[@]}"

if [ "${NODE_ID}" -eq 0 ]; then
    vllm serve "${BASE_OPTS[@]}"
else
    vllm serve "${BASE_OPTS[@]}" \
        --data-parallel-start-rank "${NODE_ID}" \
        --headless
fi
