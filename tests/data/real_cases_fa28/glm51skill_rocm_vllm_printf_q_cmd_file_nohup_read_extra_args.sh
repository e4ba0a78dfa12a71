#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/ORGRUI/glm51-vllm-deploy-skill/blob/d559f11eeafc87dc63921ece65e029a6b2a8d925/shared/scripts/serve_vllm_glm51.sh
# An agent skill's GLM-5.1 FP8 launcher on AMD (2026): `set -euo pipefail`, an optional env file under `set -a`,
# ~30 settings with `${VLLM_X:-default}`, default extra args with escaped compilation JSON split by `read -r -a`,
# MTP JSON appended, the server argv in an array, a ROCm `docker run` written into a command file with
# `printf %q` and started with `nohup`; kept: the settings, the argv, the writing of the command file and its
# start; dropped: the git metadata, the argv JSON record (a python heredoc), the sudo password paths.
set -euo pipefail

ROOT="${AMD_PROFILING_ROOT:-/data/amd_profiling}"
ENV_FILE="${VLLM_ENV_FILE:-${ROOT}/configs/vllm_glm51_amd2.env}"

if [[ -f "${ENV_FILE}" ]]; then
  set -a
  # shellcheck disable=SC1090
  source "${ENV_FILE}"
  set +a
fi

IMAGE="${VLLM_IMAGE:-vllm/vllm-openai-rocm:latest}"
MODEL="${VLLM_MODEL:-/data/glm51_sft_final_fp8}"
TP="${VLLM_TP:-8}"
DTYPE="${VLLM_DTYPE:-bfloat16}"
KV_CACHE_DTYPE="${VLLM_KV_CACHE_DTYPE:-bfloat16}"
HOST="${VLLM_HOST:-127.0.0.1}"
PORT="${VLLM_PORT:-8000}"
CONTAINER_NAME="${VLLM_CONTAINER_NAME:-vllm-glm51-local-64k-seq2}"
SERVER_NAME="${VLLM_SERVED_MODEL_NAME:-glm51-local-fp8}"
MAX_MODEL_LEN="${VLLM_MAX_MODEL_LEN:-65536}"
MAX_NUM_SEQS="${VLLM_MAX_NUM_SEQS:-2}"
MAX_NUM_BATCHED_TOKENS="${VLLM_MAX_NUM_BATCHED_TOKENS:-65536}"
GPU_MEMORY_UTILIZATION="${VLLM_GPU_MEMORY_UTILIZATION:-0.75}"
HF_HOME="${HF_HOME:-${ROOT}/hf-cache}"
VLLM_ENABLE_MTP="${VLLM_ENABLE_MTP:-1}"
VLLM_SPECULATIVE_CONFIG="${VLLM_SPECULATIVE_CONFIG:-}"
if [[ -z "${VLLM_SPECULATIVE_CONFIG}" ]]; then
  VLLM_SPECULATIVE_CONFIG='{"method":"mtp","num_speculative_tokens":1}'
fi
DEFAULT_VLLM_EXTRA_ARGS='--async-scheduling --compilation-config={"cudagraph_mode":"FULL_AND_PIECEWISE"} --enable-prefix-caching'
if [[ -z "${VLLM_EXTRA_ARGS+x}" ]]; then
  VLLM_EXTRA_ARGS="${DEFAULT_VLLM_EXTRA_ARGS}"
  if [[ "${VLLM_ENABLE_MTP}" != "0" ]]; then
    VLLM_EXTRA_ARGS+=" --speculative-config=${VLLM_SPECULATIVE_CONFIG}"
  fi
fi
VLLM_TARGET_DEVICE="${VLLM_TARGET_DEVICE:-rocm}"
VLLM_TRUST_REMOTE_CODE="${VLLM_TRUST_REMOTE_CODE:-1}"
VLLM_ENABLE_AUTO_TOOL_CHOICE="${VLLM_ENABLE_AUTO_TOOL_CHOICE:-1}"
VLLM_TOOL_CALL_PARSER="${VLLM_TOOL_CALL_PARSER:-glm47}"
VLLM_REASONING_PARSER="${VLLM_REASONING_PARSER:-glm45}"
VLLM_CHAT_TEMPLATE_CONTENT_FORMAT="${VLLM_CHAT_TEMPLATE_CONTENT_FORMAT:-string}"

mkdir -p "${ROOT}/logs" "${ROOT}/configs" "${HF_HOME}"

if [[ "${MODEL}" == /* && ! -e "${MODEL}" ]]; then
  echo "ERROR: model path does not exist: ${MODEL}" >&2
  exit 1
fi

timestamp="$(date -u +%Y%m%dT%H%M%SZ)"
log_file="${ROOT}/logs/vllm_glm51_${timestamp}.log"
cmd_file="${ROOT}/configs/vllm_glm51_${timestamp}.sh"

server_cmd=(
  vllm serve "${MODEL}"
  --host "${HOST}"
  --port "${PORT}"
  --served-model-name "${SERVER_NAME}"
  --tensor-parallel-size "${TP}"
  --max-model-len "${MAX_MODEL_LEN}"
  --max-num-seqs "${MAX_NUM_SEQS}"
  --max-num-batched-tokens "${MAX_NUM_BATCHED_TOKENS}"
  --gpu-memory-utilization "${GPU_MEMORY_UTILIZATION}"
  --dtype "${DTYPE}"
  --kv-cache-dtype "${KV_CACHE_DTYPE}"
)

if [[ "${VLLM_ENABLE_AUTO_TOOL_CHOICE}" == "1" ]]; then
  server_cmd+=(--enable-auto-tool-choice)
  server_cmd+=(--tool-call-parser "${VLLM_TOOL_CALL_PARSER}")
  server_cmd+=(--reasoning-parser "${VLLM_REASONING_PARSER}")
  server_cmd+=(--chat-template-content-format "${VLLM_CHAT_TEMPLATE_CONTENT_FORMAT}")
fi

if [[ "${VLLM_TRUST_REMOTE_CODE}" == "1" ]]; then
  server_cmd+=(--trust-remote-code)
fi

if [[ -n "${VLLM_EXTRA_ARGS}" ]]; then
  read -r -a extra_args <<<"${VLLM_EXTRA_ARGS}"
  server_cmd+=("${extra_args[@]}")
fi

{
  echo "#!/usr/bin/env bash"
  echo "set -euo pipefail"
  printf 'docker run --rm --name %q \\\n' "${CONTAINER_NAME}"
  printf '  --network host \\\n'
  printf '  --ipc host \\\n'
  printf '  --group-add video \\\n'
  printf '  --cap-add SYS_PTRACE \\\n'
  printf '  --security-opt seccomp=unconfined \\\n'
  printf '  --device /dev/kfd \\\n'
  printf '  --device /dev/dri \\\n'
  printf '  -e HF_HOME=%q \\\n' "${HF_HOME}"
  printf '  -e VLLM_TARGET_DEVICE=%q \\\n' "${VLLM_TARGET_DEVICE}"
  printf '  -v %q:%q \\\n' "${ROOT}" "${ROOT}"
  printf '  %q \\\n' "${IMAGE}"
  printf '  %q' "${server_cmd[@]}"
  echo
} >"${cmd_file}"
chmod +x "${cmd_file}"

if [[ "${VLLM_DRY_RUN:-0}" == "1" ]]; then
  echo "Dry run only. Saved launch command: ${cmd_file}"
  exit 0
fi

echo "Starting vLLM server. Logs: ${log_file}"
nohup "${cmd_file}" >"${log_file}" 2>&1 &
echo "PID: $!"
