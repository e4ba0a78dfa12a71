#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/Athe-kunal/thinking-fast-slow/blob/4af8a1af1c27df4102f799375928941348e00408/scripts/launch_sglang.sh, seen 2026-12-04: `mode="${1:?usage: ...}"`, `${VAR:-default}` settings, `override=()` and `graph_args=(--cuda-graph-bs 1 2 3 4)` arrays, a `case "${mode}"` over four modes (one writing a YAML with `{ echo ...; } > "${cfg}"` into `$(mktemp --suffix=.yaml)`), then `exec .../python -m sglang.launch_server` with `"${override[@]}"` (empty in three modes), `--dllm-algorithm`, `--dllm-algorithm-config`, `"${graph_args[@]}" ${EXTRA_ARGS:-}`.
# serves Nemotron-Labs-Diffusion with SGLang's diffusion-LM decoding: launch_sglang.sh <dlm|linear_spec|ar|routed>
# one decoding algorithm per server; MODEL, PORT, MEM_FRAC, MAX_REQS, CTX_LEN, ATTN_BACKEND override
set -euo pipefail

mode="${1:?usage: launch_sglang.sh <dlm|linear_spec|ar|routed>}"
root="$(cd "$(dirname "$0")/.." && pwd)"

MODEL="${MODEL:-nvidia/Nemotron-Labs-Diffusion-3B}"
PORT="${PORT:-30000}"
MEM_FRAC="${MEM_FRAC:-0.5}"
MAX_REQS="${MAX_REQS:-4}"
CTX_LEN="${CTX_LEN:-4096}"
ATTN_BACKEND="${ATTN_BACKEND:-flashinfer}"

override=()
graph_args=(--cuda-graph-bs 1 2 3 4)
case "${mode}" in
  dlm)
    algo=FastDiffuser
    cfg="${root}/configs/sglang/fastdiffuser.yaml"
    ;;
  linear_spec)
    algo=LinearSpec
    cfg="${root}/configs/sglang/linearspec.yaml"
    ;;
  ar)
    algo=FastDiffuser
    cfg="${root}/configs/sglang/ar.yaml"
    override=(--json-model-override-args '{"ar_mode": true}')
    ;;
  routed)
    algo=RoutedDecoding
    cfg="$(mktemp --suffix=.yaml)"
    {
      echo "algorithm: RoutedDecoding"
      echo "threshold: ${THRESHOLD:-0.9}"
      echo "block_size: ${BLOCK_SIZE:-32}"
      echo "policy_mode: \"${POLICY_MODE:-sample}\""
    } > "${cfg}"
    graph_args=(--disable-cuda-graph)
    ;;
  *)
    echo "unknown mode: ${mode}" >&2
    exit 2
    ;;
esac

exec "${root}/.venv-sglang/bin/python" -m sglang.launch_server \
  --model-path "${MODEL}" \
  --trust-remote-code \
  --tp-size 1 \
  --mem-fraction-static "${MEM_FRAC}" \
  --max-running-requests "${MAX_REQS}" \
  --attention-backend "${ATTN_BACKEND}" \
  "${override[@]}" \
  --dllm-algorithm "${algo}" \
  --dllm-algorithm-config "${cfg}" \
  "${graph_args[@]}" ${EXTRA_ARGS:-} \
  --context-length "${CTX_LEN}" \
  --host 127.0.0.1 \
  --port "${PORT}"
