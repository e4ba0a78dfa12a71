#!/bin/bash -l
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0351c1fafe4c53c91c331dea205af48b018af559/docs/references/multi_node_deployment/multi_node.md (Multi-Node Inference on SLURM), seen 2026-12-03: the #SBATCH lines, the head-node lookup and the backgrounded srun with --node-rank "$SLURM_NODEID".
#SBATCH -o SLURM_Logs/%x_%j_master.out
#SBATCH -e SLURM_Logs/%x_%j_master.err
#SBATCH -D ./
#SBATCH -J Llama-405B-Online-Inference-TP16-SGL
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=18
#SBATCH --mem=224GB
#SBATCH --partition="lmsys.org"
#SBATCH --gres=gpu:8
#SBATCH --time=12:00:00

if ! source ENV_FOLDER/bin/activate; then
    echo "cannot activate the environment" >&2
    exit 1
fi

model=MODEL_PATH
tp_size=16

HEAD_NODE=$(scontrol show hostname "$SLURM_NODELIST" | head -n 1)
NCCL_INIT_ADDR="${HEAD_NODE}:8000"

srun --ntasks=2 --nodes=2 --output="SLURM_Logs/%x_%j_node$SLURM_NODEID.out" \
    --error="SLURM_Logs/%x_%j_node$SLURM_NODEID.err" \
    python3 -m sglang.launch_server \
    --model-path "$model" \
    --grammar-backend "xgrammar" \
    --tp "$tp_size" \
    --dist-init-addr "$NCCL_INIT_ADDR" \
    --nnodes 2 \
    --node-rank "$SLURM_NODEID" &

while ! nc -z "$HEAD_NODE" 30000; do
    sleep 1
done

wait
