#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/wclmxxs/8h20/blob/268963e2d602472272bfb01693a6d2eb6b48762e/scripts/launch_sglang.sh, seen 2026-12-04: `set -euo pipefail`, `${VAR:-default}` settings, a topology guard with `exit 1`, MODEL chosen by `[[ -d ... ]]` tests, `${MODEL,,}` and `${x//-/}` rewrites, an optimisation-stack branch exporting SGLANG_* variables with nested defaults, then an `args=(sglang serve --model-type diffusion ...)` array (comments inside it) grown with `args+=(...)` under conditions and run with `exec "${args[@]}"`: SGLang's diffusion server (MiniMax-H3).
set -euo pipefail

NUM_GPUS=${NUM_GPUS:-8}
TP=${TP:-1}
ULYSSES=${ULYSSES:-8}
ENCODER_PARALLEL=${ENCODER_PARALLEL:-auto}
CSDE_MODEL_ROOT=${CSDE_MODEL_ROOT:-/opt/tiger/csde/MiniMax-H3}
MODEL_VARIANT=${MODEL_VARIANT:-fl2va}
SGLANG_HOST=${SGLANG_HOST:-0.0.0.0}
SGLANG_PORT=${SGLANG_PORT:-30020}
OUTPUT_PATH=${OUTPUT_PATH:-/out/videos}
OPTIMIZATION_STACK_ENABLED=${OPTIMIZATION_STACK_ENABLED:-1}

if [[ ${NUM_GPUS} != 8 || ${TP} != 1 || ${ULYSSES} != 8 ]]; then
  echo "the H20 topology must be NUM_GPUS=8, TP=1, ULYSSES=8; got ${NUM_GPUS}/${TP}/${ULYSSES}" >&2
  exit 1
fi

# MODEL overrides; a local MODEL_PATH directory is accepted; else the localized root or the hub id
if [[ -z ${MODEL:-} ]]; then
  if [[ -n ${MODEL_PATH:-} && -d ${MODEL_PATH:-} ]]; then
    MODEL=${MODEL_PATH}
  elif [[ -d ${CSDE_MODEL_ROOT} ]]; then
    MODEL=${CSDE_MODEL_ROOT}
  else
    MODEL=MiniMaxAI/MiniMax-H3
  fi
fi

if [[ ${MODEL} == /* ]]; then
  model_identity=${MODEL,,}
  model_identity=${model_identity//-/}
  model_identity=${model_identity//_/}
  if [[ ${model_identity} != *minimaxh3* ]]; then
    echo "a local model path must keep the MiniMax-H3 name: ${MODEL}" >&2
    exit 1
  fi
fi

if [[ ${OPTIMIZATION_STACK_ENABLED} == 1 ]]; then
  ATTENTION_BACKEND=${ATTENTION_BACKEND:-sol_attn}
  COMPONENT_ATTENTION_BACKENDS=${COMPONENT_ATTENTION_BACKENDS:-${SOL_COMPONENT_ATTENTION_BACKENDS:-text_encoder=torch_sdpa,audio_vae=fa,video_vae=fa,transformer=sol_attn}}
  WARMUP_STEPS=${WARMUP_STEPS:-${SOL_WARMUP_STEPS:-3}}
  QUANTIZATION=${QUANTIZATION:-${SOL_QUANTIZATION:-fp8}}
  LORA_MERGE_MODE=${LORA_MERGE_MODE:-${SOL_LORA_MERGE_MODE:-dynamic}}
  export SGLANG_CACHE_DIT_ENABLED=${SGLANG_CACHE_DIT_ENABLED:-${SOL_CACHE_DIT_ENABLED:-true}}
else
  ATTENTION_BACKEND=fa
  COMPONENT_ATTENTION_BACKENDS=transformer=sage_attn
  WARMUP_STEPS=
  QUANTIZATION=
  LORA_MERGE_MODE=auto
  export SGLANG_CACHE_DIT_ENABLED=false
fi

export ATTENTION_BACKEND COMPONENT_ATTENTION_BACKENDS WARMUP_STEPS QUANTIZATION LORA_MERGE_MODE
export PYTORCH_CUDA_ALLOC_CONF=${PYTORCH_CUDA_ALLOC_CONF:-expandable_segments:True}

lora_path=${LORA_REPO:-larryvrh/MiniMax-H3-Turbo-Lora}
if [[ -n ${LORA_LOCAL_PATH:-} ]]; then
  lora_path=${LORA_LOCAL_PATH}
fi

mkdir -p "${OUTPUT_PATH}"
cd /sgl-workspace/sglang

args=(
  sglang serve
  # the explicit dispatcher guard: never fall back to the LLM parser
  --model-type diffusion
  --model-path "${MODEL}"
  --model-variant "${MODEL_VARIANT}"
  --num-gpus "${NUM_GPUS}"
  --tp-size "${TP}"
  --ulysses-degree "${ULYSSES}"
  --lora-path "${lora_path}"
  --lora-nickname "${LORA_NICKNAME:-h3-turbo-v4}"
  --lora-merge-mode "${LORA_MERGE_MODE}"
  --output-path "${OUTPUT_PATH}"
  --host "${SGLANG_HOST}"
  --port "${SGLANG_PORT}"
)

# per-component attention backends, not the top-level flag
if [[ -n ${COMPONENT_ATTENTION_BACKENDS} ]]; then
  args+=(--component-attention-backends "${COMPONENT_ATTENTION_BACKENDS}")
fi
if [[ -n ${WARMUP_STEPS} ]]; then
  args+=(--warmup-steps "${WARMUP_STEPS}")
fi
if [[ -n ${QUANTIZATION} ]]; then
  args+=(--quantization "${QUANTIZATION}")
fi

exec "${args[@]}"
