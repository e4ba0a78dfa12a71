#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/hoaraujerome/vllm-deployment/blob/f421822adf0ac2f9279da53d03c757632f9dec40/phase1/serve-local.sh, seen 2026-12-04: vLLM-Metal (the Apple-silicon platform plugin) on a Mac: a usage here-document, `model="${1:-$DEFAULT_MODEL}"` (an MLX 4-bit model), a venv guard and `source .../bin/activate`, VLLM_HOST_IP/MASTER_ADDR/GLOO_SOCKET_IFNAME defaults to loopback (`lo0`), then `exec vllm serve "$model"` (kept: the structure and the values)
# Start vLLM-Metal locally with loopback networking (avoids Tailscale/CGNAT IP issues).

set -euo pipefail

VENV="${VLLM_METAL_VENV:-$HOME/.venv-vllm-metal}"
DEFAULT_MODEL="mlx-community/Qwen2.5-0.5B-Instruct-4bit"

usage() {
  cat <<EOF
Usage: $(basename "$0") [model]

Start the vLLM OpenAI-compatible API server on this Mac.

  model   Hugging Face model id (default: ${DEFAULT_MODEL})

Environment:
  VLLM_METAL_VENV   path to vLLM-Metal venv (default: ~/.venv-vllm-metal)
EOF
}

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  usage
  exit 0
fi

model="${1:-$DEFAULT_MODEL}"

if [[ ! -d "$VENV" ]]; then
  echo "Error: vLLM-Metal venv not found at ${VENV}." >&2
  exit 1
fi

# shellcheck source=/dev/null
source "${VENV}/bin/activate"

# loopback keeps the API server and EngineCore on the same host.
export VLLM_HOST_IP="${VLLM_HOST_IP:-127.0.0.1}"
export MASTER_ADDR="${MASTER_ADDR:-127.0.0.1}"
export GLOO_SOCKET_IFNAME="${GLOO_SOCKET_IFNAME:-lo0}"

exec vllm serve "$model"
