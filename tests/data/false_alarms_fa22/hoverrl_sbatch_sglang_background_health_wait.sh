#!/bin/bash
# Reconstructed (not copied) after https://github.com/ryspark/hover-rl/blob/855adc8cc328e5908cc58f1235ac37a411d89dde/distill/scripts/sglang_generate.sh, seen 2026-12-04: the #SBATCH header, ulimit, ~/.bashrc sourced and conda activated, the server started with `&` and `SERVER_PID=$!`, a `wait_for_server` function polling /health in `while true`, then the client after `cd` and another sourced venv.
#SBATCH --account=iris
#SBATCH --partition=iris
#SBATCH --nodes=1
#SBATCH --mem=128G
#SBATCH --gres=gpu:h100:1
#SBATCH --time=240:00:00
#SBATCH --job-name=gen

ulimit -n 64000
source ~/.bashrc
conda activate sglang

python -m sglang.launch_server --model-path /iris/u/rypark/code/hover-rl/models/qwen2.5_0.5b_base__sft__o3_mini_traces__grpo_broken --port 30000 --host 0.0.0.0 &
SERVER_PID=$!

wait_for_server() {
    while true; do
        if curl -s -o /dev/null -w "%{http_code}" http://0.0.0.0:30000/health >/dev/null 2>&1; then
            break
        else
            sleep 1
        fi
    done
}

wait_for_server
cd /iris/u/rypark/code/hover-rl/distill
source ../env/bin/activate
python3 generate.py
