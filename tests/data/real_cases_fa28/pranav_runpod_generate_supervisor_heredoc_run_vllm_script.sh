#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/pranavnbapat/vllm-deployment/blob/5d265d36ff0c8e032e9069a67ac1a402062e5f7b/scripts/generate_supervisor_config.sh
# A RunPod deployer (2026): sources the env file given as $1 under `set -a`, refuses a placeholder API key, then
# writes ops/run_vllm.sh (an unquoted here-document: the settings expanded into single quotes, a `$( ... )`
# choosing --trust-remote-code, EXTRA_VLLM_ARGS unquoted) and a supervisord.conf whose program runs it with
# `/bin/bash -lc`; nothing is started here; kept: the settings, both files written; dropped: the optional
# media transcriber service.
set -euo pipefail

ENV_FILE="${1:-/workspace/ops/runpod.env}"
if [[ ! -f "${ENV_FILE}" ]]; then
  echo "Env file not found: ${ENV_FILE}" >&2
  exit 1
fi

set -a
# shellcheck disable=SC1090
source "${ENV_FILE}"
set +a

WORKSPACE_DIR="${WORKSPACE_DIR:-/workspace}"
VLLM_HOST="${VLLM_HOST:-0.0.0.0}"
VLLM_PORT="${VLLM_PORT:-8000}"
SUPERVISOR_UI_HOST="${SUPERVISOR_UI_HOST:-127.0.0.1}"
SUPERVISOR_UI_PORT="${SUPERVISOR_UI_PORT:-9001}"
CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}"
VLLM_MODEL="${VLLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}"
SERVED_MODEL_NAME="${SERVED_MODEL_NAME:-qwen2.5-7b}"
VLLM_DTYPE="${VLLM_DTYPE:-auto}"
GPU_MEMORY_UTILIZATION="${GPU_MEMORY_UTILIZATION:-0.90}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-32768}"
MAX_NUM_SEQS="${MAX_NUM_SEQS:-4}"
MAX_NUM_BATCHED_TOKENS="${MAX_NUM_BATCHED_TOKENS:-32768}"
TRUST_REMOTE_CODE="${TRUST_REMOTE_CODE:-false}"
EXTRA_VLLM_ARGS="${EXTRA_VLLM_ARGS:-}"
SUPERVISOR_UI_USER="${SUPERVISOR_UI_USER:-admin}"
SUPERVISOR_UI_PASS="${SUPERVISOR_UI_PASS:-change-me}"

if [[ -z "${VLLM_API_KEY:-}" || "${VLLM_API_KEY}" == "replace-with-long-random-token" ]]; then
  echo "Set VLLM_API_KEY in ${ENV_FILE}." >&2
  exit 1
fi

mkdir -p "${WORKSPACE_DIR}/ops" "${WORKSPACE_DIR}/logs" "${WORKSPACE_DIR}/vllm/text/logs"

cat > "${WORKSPACE_DIR}/ops/run_vllm.sh" <<EOV
#!/usr/bin/env bash
set -euo pipefail
export CUDA_VISIBLE_DEVICES='${CUDA_VISIBLE_DEVICES}'
export HF_HOME='${WORKSPACE_DIR}/vllm/text/.cache/huggingface'
export PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True'
exec '${WORKSPACE_DIR}/envs/vllm/bin/vllm' serve '${VLLM_MODEL}' \\
  --host '${VLLM_HOST}' \\
  --port '${VLLM_PORT}' \\
  --dtype '${VLLM_DTYPE}' \\
  --gpu-memory-utilization '${GPU_MEMORY_UTILIZATION}' \\
  --max-model-len '${MAX_MODEL_LEN}' \\
  --max-num-seqs '${MAX_NUM_SEQS}' \\
  --max-num-batched-tokens '${MAX_NUM_BATCHED_TOKENS}' \\
  --served-model-name '${SERVED_MODEL_NAME}' \\
  \$( [[ "${TRUST_REMOTE_CODE}" == "true" ]] && echo "--trust-remote-code" ) \\
  --api-key '${VLLM_API_KEY}' \\
  ${EXTRA_VLLM_ARGS}
EOV
chmod 700 "${WORKSPACE_DIR}/ops/run_vllm.sh"

cat > "${WORKSPACE_DIR}/ops/supervisord.conf" <<EOS
[supervisord]
user=root
nodaemon=false
logfile=${WORKSPACE_DIR}/logs/supervisord.log

[inet_http_server]
port=${SUPERVISOR_UI_HOST}:${SUPERVISOR_UI_PORT}
username=${SUPERVISOR_UI_USER}
password=${SUPERVISOR_UI_PASS}

[program:vllm_text_${VLLM_PORT}]
directory=${WORKSPACE_DIR}
command=/bin/bash -lc ${WORKSPACE_DIR}/ops/run_vllm.sh
autostart=true
autorestart=true
stdout_logfile=${WORKSPACE_DIR}/vllm/text/logs/vllm_${VLLM_PORT}.log
EOS

echo "Wrote ${WORKSPACE_DIR}/ops/supervisord.conf"
echo "Wrote ${WORKSPACE_DIR}/ops/run_vllm.sh"
