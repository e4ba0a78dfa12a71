#! /bin/bash
# Reconstructed (not copied) after https://github.com/KempnerInstitute/distributed-inference-vllm/blob/16013e94fdfc528b903ec10c78d41420f30b2b05/server/405b_slurm.sh
# (2025: an sbatch job of 4 nodes of 4 GPUs: a Ray head and workers started by srun, RAY_ADDRESS exported, then
# `vllm serve` with TP 16 and no --distributed-executor-backend (vLLM picks Ray, the world not fitting on the
# node); the #SBATCH `<server_log_dir>` placeholders are the repository's own; kept as written)
#SBATCH --job-name=vllm-inference-405b
#SBATCH --account=
#SBATCH --partition=
#SBATCH --output <server_log_dir>/%x_%j/output_%j.out
#SBATCH --error <server_log_dir>/%x_%j/error_%j.out
#SBATCH --time=4:00:00
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=96
#SBATCH --mem=0
#SBATCH --exclusive

module load python/3.10.13-fasrc01
conda deactivate
conda activate vllm-inference

if [[ -z $SLURM_GPUS_ON_NODE ]]; then
    RAY_NUM_GPUS=0
else
    RAY_NUM_GPUS=$SLURM_GPUS_ON_NODE
fi

# choose available port on the head node
head_port=`comm -23 <(seq 15000 20000 | sort) <(ss -Htan | awk '{print $4}' | cut -d':' -f2 | sort -u) | shuf | head -n 1`
nodes=`scontrol show hostnames $SLURM_JOB_NODELIST`
nodes_array=( $nodes )
head_node=${nodes_array[0]}
head_node_ip=$(srun --nodes=1 --ntasks=1 -w "$head_node" hostname --ip-address)
export RAY_HEAD_ADDR="$head_node_ip:$head_port"

srun -N 1 -n 1 -w "$head_node" ray start --head --node-ip-address="$head_node_ip" --temp-dir /tmp/$USER/$SLURM_JOB_ID/ray \
    --port=$head_port --num-cpus $SLURM_CPUS_PER_TASK --num-gpus $RAY_NUM_GPUS --min-worker-port 20001 --max-worker-port 30000 --block &

sleep 5

worker_num=$((SLURM_NNODES - 1))
for (( i = 1; i <= worker_num; i++ )); do
    node=${nodes_array[$i]}
    srun -N 1 -n 1 -w "$node" ray start --address="$RAY_HEAD_ADDR" \
        --num-cpus $SLURM_CPUS_PER_TASK --num-gpus $RAY_NUM_GPUS --min-worker-port 20001 --max-worker-port 30000 --block &
    sleep 5
done

export RAY_ADDRESS="$RAY_HEAD_ADDR"

vllm serve /n/holylfs06/LABS/kempner_shared/Everyone/testbed/models/Llama-3.1-405B --tensor-parallel-size 16 --enforce-eager
