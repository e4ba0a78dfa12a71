#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/b1a523bf30aebcf76c6a19397a8419afef36bae4/examples/online_serving/sagemaker-entrypoint.sh, seen 2026-12-01: SM_VLLM_* environment variables turned into flags by a `while read` loop over `env | grep`, appended to an array after --port 8080, then `exec vllm serve "${ARGS[@]}"`.
PREFIX="SM_VLLM_"
ARGS=(--port 8080)

# SM_VLLM_MAX_MODEL_LEN=4096 becomes --max-model-len 4096; an empty value gives a bare flag.
while IFS='=' read -r key value; do
    flag=$(echo "${key#"${PREFIX}"}" | tr '[:upper:]' '[:lower:]' | tr '_' '-')
    ARGS+=("--${flag}")
    if [ -n "$value" ]; then
        ARGS+=("$value")
    fi
done < <(env | grep "^${PREFIX}")

exec vllm serve "${ARGS[@]}"
