# Copied from https://github.com/sgl-project/sglang/issues/3206 (comment of 2025-02-03; seen 2026-12-03): two V100 nodes, each entered with `srun -p gpu --gres=gpu:8 --pty bash`, the SGLang image converted to a Singularity SIF; the command the reporter runs, `--node-rank 1` with `--dist-init-addr $(hostname):5000` (the node's own name, expanded by the node's shell before singularity starts). The start hangs; a rank other than 0 must name the machine of rank 0, where the store listens. The proxy variables and HF_TOKEN are kept as written.
export MOUNT="/nethome/recpinfo/users/u4vn/cache/hf_cache:/hf_cache,/nethome/recpinfo/users/u4vn/cache/outlines_cache:/ocache"

export IMAGE_NAME="/nethome/recpinfo/users/sahhug/deepseek/sglang.sif"


singularity exec \
                --env http_proxy=$HTTP_PROXY --env https_proxy=$HTTPS_PROXY --nv \
                --bind $MOUNT $IMAGE_NAME bash -c \
                "export OUTLINES_CACHE_DIR=/ocache/${SLURM_JOB_ID}_1 && \
                export HF_HOME=/hf_cache \
                export HF_TOKEN=$HF_TOKEN && \
                python3 -m sglang.launch_server \
                --model-path meta-llama/Llama-3.1-70B \
                --tp 16 \
                --dist-init-addr $(hostname):5000 \
                --nnodes 2 \
                --node-rank 1 \
                --trust-remote-code \
                --host 0.0.0.0 \
                --port 40000"
