#! /bin/bash
# Reconstructed (not copied) after https://github.com/HabanaAI/vllm-fork/blob/067d93badc98f258e9760187f27ea4f25e007fc3/scripts/quickstart/start_vllm.sh (pull #1446), seen 2026-12-02: keeps `while getopts hw:u:p:l:b:c:s flag` with its `case $flag` (h exits, `\?` exits), the defaults, the `hl-smi | grep` platform probe whose else branch exits, the `(( ))` and `$(( ?: ))` arithmetic on the parsed values and the server command; help text, bucketing exports and `ray stop` dropped
# args: -w /data/hf_models/DeepSeek-R1-Gaudi -p 8700 -l 32768 -b 64 -s

Help() { echo "usage: start_vllm.sh -w MODEL [-u HOST] [-p PORT] [-l LEN] [-b SEQS] [-c DIR] [-s]"; }

model_path=/data/hf_models/DeepSeek-R1-Gaudi
vllm_port=8688
warmup_cache_path=/data/warmup_cache
max_num_seqs=128
host=0.0.0.0
max_model_len=16384

while getopts hw:u:p:l:b:c:s flag; do
    case $flag in
    h) Help; exit ;;
    w) model_path=$OPTARG ;;
    u) host=$OPTARG ;;
    p) vllm_port=$OPTARG ;;
    l) max_model_len=$OPTARG ;;
    b) max_num_seqs=$OPTARG ;;
    c) warmup_cache_path=$OPTARG ;;
    s) skip_warmup=true ;;
    \?) echo "Error: Invalid option"; Help; exit ;;
    esac
done

if [ "$skip_warmup" = "true" ]; then
    export VLLM_SKIP_WARMUP=True
fi

if hl-smi 2>/dev/null | grep -q HL-225; then
    default_decode_bs_step=8
elif hl-smi 2>/dev/null | grep -q HL-288; then
    default_decode_bs_step=2
else
    echo "Unknown platform"
    exit 1
fi

if (( max_model_len <= 16384 )); then
    export VLLM_GPU_MEMORY_UTILIZATION=0.85
else
    export VLLM_GPU_MEMORY_UTILIZATION=0.75
fi
max_num_batched_tokens=$max_model_len
export VLLM_DECODE_BS_BUCKET_STEP=$(( max_num_seqs > default_decode_bs_step ? default_decode_bs_step : max_num_seqs ))

python3 -m vllm.entrypoints.openai.api_server --host $host --port $vllm_port \
--block-size 128 --model $model_path --device hpu --dtype bfloat16 --kv-cache-dtype fp8_inc \
--tensor-parallel-size 8 --trust-remote-code --max-model-len $max_model_len \
--max-num-seqs $max_num_seqs --max-num-batched-tokens $max_num_batched_tokens \
--distributed_executor_backend ray --gpu_memory_utilization $VLLM_GPU_MEMORY_UTILIZATION \
--disable-log-requests --reasoning-parser deepseek_r1
