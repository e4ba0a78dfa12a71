#!/bin/bash
# Reconstructed (not copied) after https://github.com/Manzela/gemma4-vllm-deployment/blob/651d29b77b8ef310e5fb1420e67f0b9bd3de4899/container/entrypoint.sh, seen 2026-12-04: a Vertex AI container's entrypoint for Gemma 4 (April 2026): a gcsfuse mount that may fail, a `python3 -c "..."` that patches the tokenizer, a loop that drops `--chat-template` from "$@" into an array and appends `--tokenizer=DIR`, then `exec python -m vllm.entrypoints.openai.api_server "${FILTERED_ARGS[@]}"` (kept: the structure; the Python body and the comments shortened)
set -uo pipefail

BUCKET="${LORA_ADAPTER_BUCKET:-your-lora-adapters-bucket}"
MOUNT_POINT="/mnt/gcs"

echo "[entrypoint] Attempting GCSFUSE mount: gs://${BUCKET} -> ${MOUNT_POINT}"

if gcsfuse \
    --implicit-dirs \
    --log-severity=warning \
    --file-mode=444 \
    --dir-mode=555 \
    "${BUCKET}" "${MOUNT_POINT}" 2>&1; then
    echo "[entrypoint] GCSFUSE mounted"
else
    echo "[entrypoint] GCSFUSE mount FAILED (non-fatal). Proceeding without adapter mount."
fi

PATCHED_TOKENIZER_DIR="/tmp/patched_tokenizer"

if [ -f /chat_template.jinja ]; then
    echo "[entrypoint] Downloading tokenizer for patching..."
    python3 -c "
from huggingface_hub import snapshot_download
import json, os
snapshot_download(
    'google/gemma-4-27b-a4b-it',
    local_dir='${PATCHED_TOKENIZER_DIR}',
    allow_patterns=['tokenizer*', 'chat_template*', 'generation_config*'],
    token=os.environ.get('HF_TOKEN'),
)
print('[entrypoint] Tokenizer files downloaded')
" 2>&1

    if [ $? -eq 0 ] && [ -d "${PATCHED_TOKENIZER_DIR}" ]; then
        cp /chat_template.jinja "${PATCHED_TOKENIZER_DIR}/chat_template.jinja"
        echo "[entrypoint] chat_template.jinja patched with simplified version"
    else
        echo "[entrypoint] Tokenizer download failed. Using default template (may crash)."
        PATCHED_TOKENIZER_DIR=""
    fi
else
    echo "[entrypoint] /chat_template.jinja not found. Using default template."
    PATCHED_TOKENIZER_DIR=""
fi

# Filter args and inject --tokenizer if we have a patched copy
FILTERED_ARGS=()
for arg in "$@"; do
    case "$arg" in
        --chat-template=*|--chat-template)
            echo "[entrypoint] Stripping arg: $arg (handled via tokenizer patch)"
            ;;
        *)
            FILTERED_ARGS+=("$arg")
            ;;
    esac
done

if [ -n "${PATCHED_TOKENIZER_DIR}" ] && [ -d "${PATCHED_TOKENIZER_DIR}" ]; then
    FILTERED_ARGS+=("--tokenizer=${PATCHED_TOKENIZER_DIR}")
    echo "[entrypoint] Injected --tokenizer=${PATCHED_TOKENIZER_DIR}"
fi

echo "[entrypoint] Starting vLLM server with args: ${FILTERED_ARGS[*]}"

exec python -m vllm.entrypoints.openai.api_server "${FILTERED_ARGS[@]}"
