#! /bin/bash
# Reconstructed (not copied) after https://github.com/KempnerInstitute/distributed-inference-vllm/blob/6fbdc95a28680aa86ae87098b5caea13d2a2af13/workflows/DeepSeek-R1-0528_multinode-server/deepseek_r1_0528_h100_slurm.sh
# (2025: an sbatch job of 4 H100 nodes: Ray head and workers started by srun, the head's address and a free port
# computed at run time, vLLM's TP the product of $SLURM_NNODES and $SLURM_GPUS_ON_NODE; the #SBATCH placeholders
# `<job-name>` are the page's own; echo lines shortened)
#SBATCH --job-name=<job-name>
#SBATCH --partition=<partition-name>
#SBATCH --account=<account-name>
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=96
#SBATCH --mem=1440G
#SBATCH --exclusive
#SBATCH --constraint=h100
#SBATCH --time=03-00:00:00
#SBATCH -o job.%N.%j.out
#SBATCH -e job.%N.%j.err

module load python/3.10.13-fasrc01
conda deactivate
conda activate vllm-inference

MODEL_PATH="/n/holylfs06/LABS/kempner_shared/Everyone/testbed/models/DeepSeek-R1-0528"

if [[ -z $SLURM_GPUS_ON_NODE ]]; then
    RAY_NUM_GPUS=0
else
    RAY_NUM_GPUS=$SLURM_GPUS_ON_NODE
fi

nodes=$(scontrol show hostnames $SLURM_JOB_NODELIST)
nodes_array=( $nodes )
head_node=${nodes_array[0]}
head_node_ip=$(getent hosts "$head_node" | awk '{print $1}')
used_ports=$(ss -Htan | awk -F':' '{print $NF}' | sort -u)
head_port=$(comm -23 <(seq 15000 20000) <(echo "$used_ports") | shuf -n 1)

echo "Head node: $head_node ($head_node_ip:$head_port)"

export RAY_HEAD_ADDR="$head_node_ip:$head_port"

srun -N 1 -n 1 -w "$head_node" ray start --head --node-ip-address="$head_node_ip" --temp-dir /tmp/$USER/$SLURM_JOB_ID/ray \
    --port=$head_port --num-cpus $SLURM_CPUS_PER_TASK --num-gpus $RAY_NUM_GPUS --min-worker-port 20001 --max-worker-port 30000 --block &

sleep 10

worker_num=$((SLURM_NNODES - 1))
for (( i = 1; i <= worker_num; i++ )); do
    node=${nodes_array[$i]}
    srun -N 1 -n 1 -w "$node" ray start --address="$RAY_HEAD_ADDR" \
        --num-cpus $SLURM_CPUS_PER_TASK --num-gpus $RAY_NUM_GPUS --min-worker-port 20001 --max-worker-port 30000 --block &
    sleep 5
done

export RAY_ADDRESS="$RAY_HEAD_ADDR"
export LOGLEVEL=DEBUG

vllm serve $MODEL_PATH \
  --tensor-parallel-size $((SLURM_NNODES * SLURM_GPUS_ON_NODE)) \
  --enable-reasoning \
  --reasoning-parser deepseek_r1 \
  --trust-remote-code \
  --enforce-eager

# Additional flags to fine-tune throughput and concurrency
#   --max-num-seqs 112 \
#   --distributed-executor-backend ray \
#   --port 8000
