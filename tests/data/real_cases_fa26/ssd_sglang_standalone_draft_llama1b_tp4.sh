#!/bin/bash
# Reconstructed (not copied) after https://github.com/tanishqkumar/ssd/blob/0e2fcb6e225e9dc8a58da7404cc737600d6ec198/bench/launch_sglang_server.sh, seen 2026-12-04: SGLang's STANDALONE speculative decoding (Llama 3.2 1B drafting for Llama 3.1 70B) from snapshot directories, TP 4, a conda env, one running request (kept: the structure and the flags)
# Run on a compute node

source /home/tkumar/miniconda3/etc/profile.d/conda.sh
conda activate async-spec

MODEL=/data/shared/huggingface/hub/models--meta-llama--Llama-3.1-70B-Instruct/snapshots/1605565b47bb9346c5515c34102e054115b4f98b
DRAFT=/data/shared/huggingface/hub/models--meta-llama--Llama-3.2-1B-Instruct/snapshots/9213176726f574b556790deb65791e0c5aa438b6

python3 -m sglang.launch_server \
    --model-path $MODEL \
    --speculative-algorithm STANDALONE \
    --speculative-draft-model-path $DRAFT \
    --speculative-num-steps 5 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 6 \
    --tp 4 \
    --mem-fraction-static 0.7 \
    --disable-radix-cache \
    --max-running-requests 1 \
    --trust-remote-code \
    --port 40010
