#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/TechPreacher/dgx-spark-vllm-cluster/blob/103d87013cf9ad55ca5e6ab457bb5c3e8a7d0086/cluster/lib.sh
# The launchers' shared helpers (sourced); kept: load_env and find_ray_container.
load_env() {
  local dir="$1"
  if [[ -f "${dir}/.env" ]]; then
    set -a
    source "${dir}/.env"
    set +a
  fi
}

find_ray_container() {
  local name
  name=$(docker ps --format '{{.Names}}' | grep -E '^node-[0-9]+$' | head -n1)
  if [[ -z "${name}" ]]; then
    echo "No node-* container running on this host. Start the Ray cluster first." >&2
    exit 1
  fi
  echo "${name}"
}
