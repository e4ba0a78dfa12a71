#!/bin/bash
# Reconstructed (not copied) after https://github.com/linfeng-du/PURPLE/blob/14b039da1129fe861fd8a81177b5fd5dc6572e30/scripts/serve_llm.sh, seen 2026-12-02: keeps the external `getopt --long time:,model:,port:` whose output `eval set --` makes the new arguments, the `while true; case "$1"` loop ending at `--) shift; break`, the `: "${x:=default}"` defaults and the server built by `echo -n` inside `sbatch --wrap="$( ... )"`
# args: --time 12:00:00 --model meta-llama/Llama-3.1-8B-Instruct --port 8001

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

sbatch --job-name="$model" --time="$time" --gres=gpu:h100:4 \
    --wrap="$(
        echo -n "python -m vllm.entrypoints.openai.api_server "
        echo -n "--model \"$model\" "
        echo -n "--tensor_parallel_size 4 "
        echo -n "--host 0.0.0.0 "
        echo -n "--port \"$port\""
    )"
