#!/bin/bash
# Reconstructed (not copied) after https://github.com/claireg808/NLP_knowledge_graph/blob/5f70b476f00e043f6f4bab35f1c9e44229eb20b5/run.sh, seen 2026-12-03: the #SBATCH lines (one 80g GPU), `module load` of python and cuda, the venv activation and the vllm serve line with its context length.
#SBATCH --gres=gpu:80g:1
#SBATCH --mem=100G
#SBATCH --output=run_output.txt
#SBATCH --job-name=ds
module load python/3.11
module load cuda/12.8
source ds_kg_venv/bin/activate
vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-32B --max-model-len 35904
