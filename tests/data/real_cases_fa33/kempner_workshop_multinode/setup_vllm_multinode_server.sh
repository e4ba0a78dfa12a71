#!/bin/bash
# Reconstructed (not copied) after https://github.com/KempnerInstitute/distributed-inference-vllm/blob/3bc3c60769f2d4b0f61d54d11b1050b5e63068f6/workshops/w260326/scripts/setup_vllm_multinode_server.sh
# (2026-03 workshop: an sbatch job of 2 nodes that sources init_cluster.sh (beside it, after the same
# repository's workshops/workshop_260326/init_cluster.sh at 7138431f: Ray head and workers over srun, the head's
# IP from `srun ... hostname --ip-address`), then runs the OpenAI server over Ray in the background and polls
# /health; the banner echo lines are shortened)
#SBATCH --job-name=vLLM_MultiNode_Server
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:4
#SBATCH --cpus-per-task=32
#SBATCH --mem=500G
#SBATCH --partition=gpu            # Replace with your partition
#SBATCH --account=your_account     # Replace with your account
#SBATCH --time=12:00:00
#SBATCH --output=vllm_multinode_%j.out
#SBATCH --error=vllm_multinode_%j.err

echo "Job ID: $SLURM_JOB_ID, started at: $(date)"

MODEL_NAME="meta-llama/Meta-Llama-3.1-405B-Instruct"  # Adjust as needed
TENSOR_PARALLEL_SIZE=4  # Total GPUs (4 GPUs/node)
PIPELINE_PARALLEL_SIZE=2  # Number of nodes
MAX_MODEL_LEN=16384
GPU_MEMORY_UTIL=0.90

export HF_HOME=/path/to/huggingface_cache  # Replace with your HF cache path
VLLM_ENV_PATH=/path/to/vllm/env            # Replace with your vLLM environment

source $VLLM_ENV_PATH/bin/activate
if [ $? -ne 0 ]; then
    echo "Error: Failed to activate environment at $VLLM_ENV_PATH"
    exit 1
fi

SCRIPT_DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"
source "$SCRIPT_DIR/init_cluster.sh"
if [ $? -ne 0 ]; then
    echo "Error: Ray cluster initialization failed"
    exit 1
fi

export NCCL_SOCKET_IFNAME=ib0
export NCCL_IB_HCA=mlx5_2,mlx5_3,mlx5_4,mlx5_5
export NCCL_SOCKET_FAMILY=AF_INET
export NCCL_DEBUG=INFO

export VLLM_ALLREDUCE_USE_SYMM_MEM=0
export VLLM_DISTRIBUTED_EXECUTOR_CONFIG='{"placement_group_options":{"strategy":"SPREAD"}}'

python -m vllm.entrypoints.openai.api_server \
    --model $MODEL_NAME \
    --tensor-parallel-size $TENSOR_PARALLEL_SIZE \
    --pipeline-parallel-size $PIPELINE_PARALLEL_SIZE \
    --max-model-len $MAX_MODEL_LEN \
    --distributed-executor-backend ray \
    --gpu-memory-utilization $GPU_MEMORY_UTIL \
    --trust-remote-code \
    --disable-custom-all-reduce \
    --enforce-eager &

SERVER_PID=$!

max_attempts=60
attempt=0
until curl -s "http://$VLLM_HOST_IP:8000/health" > /dev/null 2>&1; do
    sleep 10
    attempt=$((attempt + 1))
    if [ $attempt -ge $max_attempts ]; then
        echo "Error: Server failed to start within expected time"
        kill $SERVER_PID 2>/dev/null
        exit 1
    fi
done

echo "Server URL: http://$VLLM_HOST_IP:8000 (head node $VLLM_HEAD_NODE)"
echo "  ssh $USER@$VLLM_HEAD_NODE"

wait $SERVER_PID
