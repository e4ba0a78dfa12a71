#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/ca8d0e5217f493d4a441ac27bcf8a6bd31e30df1/examples/online_serving/disaggregated_serving/mooncake_connector/run_mooncake_connector.sh, seen 2026-12-03: the ${VAR:-default} settings, the HF_TOKEN guard that exits, the read -ra arrays and the per-GPU prefill/decode loops.
MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}
PROXY_PORT=${PROXY_PORT:-8000}
PREFILL_GPUS=${PREFILL_GPUS:-0}
DECODE_GPUS=${DECODE_GPUS:-1}
PREFILL_PORTS=${PREFILL_PORTS:-8010}
BOOTSTRAP_PORTS=${BOOTSTRAP_PORTS:-8998}
DECODE_PORTS=${DECODE_PORTS:-8020}

check_hf_token() {
    if [ -z "$HF_TOKEN" ]; then
        echo "set HF_TOKEN first"
        exit 1
    fi
}

main() {
    check_hf_token
    IFS=',' read -ra PREFILL_GPU_ARRAY <<< "$PREFILL_GPUS"
    IFS=',' read -ra DECODE_GPU_ARRAY <<< "$DECODE_GPUS"
    IFS=',' read -ra PREFILL_PORT_ARRAY <<< "$PREFILL_PORTS"
    IFS=',' read -ra BOOTSTRAP_PORT_ARRAY <<< "$BOOTSTRAP_PORTS"
    IFS=',' read -ra DECODE_PORT_ARRAY <<< "$DECODE_PORTS"
    proxy_param=""
    for i in "${!PREFILL_GPU_ARRAY[@]}"; do
        local gpu_id=${PREFILL_GPU_ARRAY[$i]}
        local port=${PREFILL_PORT_ARRAY[$i]}
        local bootstrap_port=${BOOTSTRAP_PORT_ARRAY[$i]}
        VLLM_MOONCAKE_BOOTSTRAP_PORT=$bootstrap_port CUDA_VISIBLE_DEVICES=$gpu_id vllm serve $MODEL \
        --port $port \
        --kv-transfer-config \
        "{\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"kv_producer\"}" > prefill$((i+1)).log 2>&1 &
        proxy_param="${proxy_param} --prefill http://0.0.0.0:${port} $bootstrap_port"
    done
    for i in "${!DECODE_GPU_ARRAY[@]}"; do
        local gpu_id=${DECODE_GPU_ARRAY[$i]}
        local port=${DECODE_PORT_ARRAY[$i]}
        CUDA_VISIBLE_DEVICES=$gpu_id vllm serve $MODEL \
        --port $port \
        --kv-transfer-config \
        "{\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"kv_consumer\"}" > decode$((i+1)).log 2>&1 &
        proxy_param="${proxy_param} --decode http://0.0.0.0:${port}"
    done
    python3 mooncake_connector_proxy.py $proxy_param --port $PROXY_PORT > proxy.log 2>&1 &
    wait
}

main
