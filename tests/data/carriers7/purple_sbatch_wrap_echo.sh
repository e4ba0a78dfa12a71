#!/bin/bash
# Source: https://github.com/linfeng-du/PURPLE/blob/14b039da1129fe861fd8a81177b5fd5dc6572e30/scripts/serve_llm.sh
# (the server command is built by `echo -n` pieces inside `--wrap="$(...)"`; sbatch runs it in an `sh` script)

ARGS=$(getopt --options "" --long time:,model:,port: --name "$0" -- "$@")
eval set -- "$ARGS"

while true; do
    case "$1" in
        --time) time="$2"; shift 2 ;;
        --model) model="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "Unknown option: $1" >&2; exit 1 ;;
    esac
done

: "${time:=24:00:00}"
: "${model:=meta-llama/Meta-Llama-3-70B-Instruct}"
: "${port:=8000}"

sbatch \
    --job-name="$model" \
    --time="$time" \
    --gres=gpu:h100:4 \
    --mem=256G \
    --output="./logs/serve_llm/$model/%j.out" \
    --error="./logs/serve_llm/$model/%j.err" \
    --wrap="$(
        echo -n "source ~/.bashrc; "
        echo -n "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False; "
        echo -n "activate vllm; "
        echo -n "python -m vllm.entrypoints.openai.api_server "
        echo -n "--model \"$model\" "
        echo -n "--tensor_parallel_size 4 "
        echo -n "--host 0.0.0.0 "
        echo -n "--port \"$port\""
    )"
