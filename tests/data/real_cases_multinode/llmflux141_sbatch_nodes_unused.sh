#!/bin/bash
# Reconstructed (not copied) after https://github.com/Center-for-AI-Innovation/LLMFlux/pull/141 (2026-08-14; seen 2026-12-03): "`--nodes N` is accepted, forwarded to `#SBATCH --nodes=`, and then ignored. The inference server starts on the first node; the other N-1 are allocated, billed for the job's full walltime, and never touched" (sacct: the batch step on 1 node, no .0 step). The shape the PR describes before its fix: a batch script of 2 nodes x 4 GPUs starting `vllm serve` from the SIF in the batch shell itself (no srun); the SIF, model path and port are placeholders.
#SBATCH --job-name=llmflux
#SBATCH --nodes=2
#SBATCH --gpus-per-node=4
#SBATCH --time=04:00:00

SIF=/projects/llmflux/vllm-1.0.0.sif
MODEL=/models/Llama-3.3-70B-Instruct

apptainer exec --nv "$SIF" vllm serve "$MODEL" --tensor-parallel-size 4 --port 8000 &
SERVER_PID=$!
python -m llmflux.batch --base-url http://localhost:8000/v1
kill $SERVER_PID
