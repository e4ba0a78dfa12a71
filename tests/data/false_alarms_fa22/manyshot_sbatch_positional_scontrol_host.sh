#!/bin/bash
# Reconstructed (not copied) after https://github.com/Rajeevveera24/manyshot-math/blob/2333f10051b5ab3fc1d0e4cc493f2253371d40a1/deploy_vllm.sh, seen 2026-12-04: the #SBATCH header, `model_name=$1` and `port=$2`, `eval "$(conda shell.bash hook)"`, and `vllm serve $model_name` with `--host $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)` and `--port $port` (no newline at the end).
#SBATCH --nodes=1
#SBATCH --gres=gpu:A100_40GB:1
#SBATCH --mem=48G
#SBATCH --time=2-00:00:00
#SBATCH --output=logs/vllm_server-%j.out

model_name=$1
port=$2

eval "$(conda shell.bash hook)"
conda activate vllm

vllm serve $model_name \
    --host $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1) \
    --port $port \
    --disable-frontend-multiprocessing \
    --gpu-memory-utilization 0.95 \
    --served-model-name llm