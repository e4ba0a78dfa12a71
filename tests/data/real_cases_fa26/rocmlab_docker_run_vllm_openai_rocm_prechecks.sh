#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/psuri-github/vllm-rocm-inference-lab/blob/5019f090e8aa531fc2c5349e3d6c7f4f5bc8c2c1/scripts/02-run-vllm-rocm.sh, seen 2026-12-04: an AMD GPU Droplet lab: `set -u`, `${NAME:-default}` settings, checks that docker runs, that rocm-smi exists and that /dev/kfd and /dev/dri exist (a loop over an array), `docker rm -f`, then `docker run -d` of vllm/vllm-openai-rocm:latest with `--model "$MODEL"` after the image (kept: the structure and the values; the echo lines shortened)
set -u

MODEL="${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}"
IMAGE="${IMAGE:-vllm/vllm-openai-rocm:latest}"
CONTAINER_NAME="${CONTAINER_NAME:-vllm-rocm}"
HOST_PORT="${HOST_PORT:-8000}"
CONTAINER_PORT="${CONTAINER_PORT:-8000}"

echo "Starting vLLM ROCm container..."

if ! command -v docker >/dev/null 2>&1; then
  echo "ERROR: docker is not installed or not in PATH."
  exit 1
fi

if ! docker ps >/dev/null 2>&1; then
  echo "ERROR: docker is installed, but docker ps failed."
  exit 1
fi

if ! command -v rocm-smi >/dev/null 2>&1; then
  echo "ERROR: rocm-smi is missing."
  exit 1
fi

device_files=("/dev/kfd" "/dev/dri")

for device_file in "${device_files[@]}"; do
  if [ ! -e "$device_file" ]; then
    echo "ERROR: $device_file is missing."
    exit 1
  fi
done

docker rm -f "$CONTAINER_NAME" >/dev/null 2>&1 || true

docker run -d \
  --name "$CONTAINER_NAME" \
  --device=/dev/kfd \
  --device=/dev/dri \
  --group-add video \
  --ipc=host \
  -p "$HOST_PORT:$CONTAINER_PORT" \
  "$IMAGE" \
  --model "$MODEL" \
  --host 0.0.0.0 \
  --port "$CONTAINER_PORT"

echo "Container started: $CONTAINER_NAME"
