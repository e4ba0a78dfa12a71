#!/bin/bash
# Reconstructed (not copied) after https://github.com/KempnerInstitute/distributed-inference-vllm/blob/7138431f6bd9375d9a1460c8e7b1153b544bf9f0/workshops/workshop_260326/init_cluster.sh
# (sourced by setup_vllm_multinode_server.sh; echo lines shortened)

if [ -z "$SLURM_JOB_ID" ]; then
    echo "Error: Not running in a SLURM job."
    return 1
fi

nodelist=$(scontrol show job $SLURM_JOB_ID | grep " NodeList=" | head -1 | sed 's/.*NodeList=//' | awk '{print $1}')
if [ -z "$nodelist" ]; then
    echo "Error: Could not detect node allocation from job $SLURM_JOB_ID"
    return 1
fi

nodes=$(scontrol show hostnames "$nodelist")
nodes_array=($nodes)
num_nodes=${#nodes_array[@]}

if [ -n "$SLURM_GPUS_ON_NODE" ]; then
    num_gpus=$SLURM_GPUS_ON_NODE
elif [ -n "$SLURM_GPUS_PER_NODE" ]; then
    num_gpus=$SLURM_GPUS_PER_NODE
else
    num_gpus=$(scontrol show job $SLURM_JOB_ID | grep -oP 'GRES=gpu:\K\d+' | head -1)
    if [ -z "$num_gpus" ]; then
        num_gpus=4
    fi
fi

head_node=${nodes_array[0]}
export VLLM_HEAD_NODE=$head_node

head_node_ip=$(srun --nodes=1 --ntasks=1 -w "$head_node" hostname --ip-address | awk '{print $1}')
port=6379

export VLLM_HOST_IP=$head_node_ip

ray start --head \
    --node-ip-address="$head_node_ip" \
    --port=$port \
    --num-gpus=$num_gpus \
    --block &

sleep 10

if [ $num_nodes -gt 1 ]; then
    for ((i=1; i<$num_nodes; i++)); do
        worker_node=${nodes_array[$i]}
        srun --nodes=1 --ntasks=1 -w "$worker_node" \
            bash -c "export VLLM_HOST_IP=\$(hostname --ip-address | awk '{print \$1}') && \
                     ray start --address='$head_node_ip:$port' --num-gpus=$num_gpus --block" &
        sleep 2
    done
    sleep 5
fi

export RAY_ADDRESS="$head_node_ip:$port"
echo "Ray Address: $RAY_ADDRESS"
