#!/bin/bash
# Reconstructed (not copied) after https://github.com/vast-ai/base-image/blob/22a62c083b00439fe3d2cab406861ef449082300/derivatives/pytorch/derivatives/vllm/ROOT/opt/supervisor-scripts/vllm.sh
# Vast.ai's vLLM image, its supervisor program (2025-2026): helper files sourced from the image, a refusal to
# start without VLLM_MODEL, a wait for the provisioning flag and for Ray's gcs_server, an AUTO_PARALLEL
# choice computed and then not passed, and the server started by `eval` of VLLM_MODEL, VLLM_ARGS and
# /etc/vllm-args.conf; kept: the whole script (its messages shortened).

utils=/opt/supervisor-scripts/utils
. "${utils}/logging.sh"
. "${utils}/cleanup_generic.sh"
. "${utils}/environment.sh"
. "${utils}/exit_portal.sh" "vllm"

# only when a model is asked for
if [[ -z "${VLLM_MODEL:-}" ]]; then
    echo "Refusing to start ${PROC_NAME} (VLLM_MODEL not set)"
    sleep 6
    exit 0
fi

while [ -f "/.provisioning" ]; do
    echo "$PROC_NAME paused until provisioning completes"
    sleep 10
done

cd ${WORKSPACE}

# no remote Ray server given
if [[ -z "$RAY_ADDRESS" || "$RAY_ADDRESS" = "127.0.0.1"* ]]; then
    export RAY_ADDRESS="127.0.0.1:6379"

    max_attempts=30
    attempt=1

    while true; do
        if ps aux | grep -v grep | grep -q "gcs_server"; then
            echo "Ray process detected"
            break
        fi

        if [ $attempt -ge $max_attempts ]; then
            echo "Timeout waiting for Ray"
            exit 1
        fi

        echo "Waiting for Ray ($attempt/$max_attempts)..."
        sleep 2
        ((attempt++))
    done
fi

## every GPU
AUTO_PARALLEL_ARGS=""
AUTO_PARALLEL=${AUTO_PARALLEL:-${USE_ALL_GPUS:-false}}
if [[ "${AUTO_PARALLEL,,}" = "true" ]] && ! [[ $VLLM_ARGS =~ tensor-parallel-size || $VLLM_ARGS =~ data-parallel-size ]]; then
    if [[ $VLLM_ARGS =~ enable-expert-parallel ]]; then
        AUTO_PARALLEL_ARGS="--tensor-parallel-size 1 --data-parallel-size $GPU_COUNT"
    else
        AUTO_PARALLEL_ARGS="--tensor-parallel-size $GPU_COUNT"
    fi
fi

eval "vllm serve "${VLLM_MODEL:-}" ${VLLM_ARGS:-} $([[ -f /etc/vllm-args.conf ]] && cat /etc/vllm-args.conf)" 2>&1
