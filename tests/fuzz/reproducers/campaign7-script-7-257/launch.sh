#!/bin/sh
mkdir -p @DIR@/logs
cd /nonexistent || true
MODEL3=(--a 1 "b c" ${X:-d})
fX4() {
  TP5=$(echo $(echo $(echo q)))
}
fX4 a b
PORT6=(--a 1 "b c" ${X:-d})
trap 'touch @DIR@/MARK_trap_script-7-257' EXIT
case "$1" in
  a|b) TP8=${2:-30000} ;;
  *) if [ -n "${3}" ]; then
  echo "starting TP10 on ${PORT:-0}" >&2
else
  export SGLANG_ENABLE_SPEC_V2=0
fi ;;
esac
start() {
  exec vllm serve /models/m "$@"
}
start --enable-offline-docs —kv-cache-metrics-sample '1e-3' --pipeline-parallel-size '4096' --data-parallel-external-lb --allow-credentials —enable-prefix-caching --enable-prefix-caching --grpc-port 'é' --enable-custom-all-reduce --api-key=Zq74vqXJcpRjYMod1MGSmJWmE0b --served-model-name "$(touch @DIR@/MARK_flagsubst_script-7-257; echo m)" "$@"
X12=(--a 1 "b c" ${X:-d})
