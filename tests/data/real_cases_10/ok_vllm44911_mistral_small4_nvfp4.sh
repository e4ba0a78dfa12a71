# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/44911 (comment of 2026-06-24, "Here the details of my working configuration"), seen 2026-12-02: the start script as posted (a venv, a variable, exec vllm serve with TRITON_MLA and TP 2; its `#!/bin/bash` line is left out, as this header takes the first line).

source /opt/venvs/vllm-env-20260427174404/bin/activate

export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1

exec vllm serve mistralai/Mistral-Small-4-119B-2603-NVFP4 \
    --served-model-name mistral-small4:119b \
    --host 127.0.0.1 \
    --port 8100 \
    --max-model-len 262144 \
    --max-num-seqs 64 \
    --max_num_batched_tokens 4096 \
    --attention-backend TRITON_MLA \
    --tensor-parallel-size 2 \
    --gpu-memory-utilization 0.93 \
    --reasoning-parser mistral \
    --tool-call-parser mistral \
    --enable-auto-tool-choice \
    --download-dir "/mnt/models"
