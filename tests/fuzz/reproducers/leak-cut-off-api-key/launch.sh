
TP1=(--a 1 "b c" ${X:-d})
ARGS2=`touch @DIR@/MARK_backtick_script-7-210`
source ./env_extra.sh
trap 'touch @DIR@/MARK_trap_script-7-210' EXIT
if [ -n "${3}" ]; then
  fTP4() {
  export VLLM_USE_V1=0,1,2,3
}
fTP4 a b
else
  case "$1" in
  a|b) echo "starting MODEL7 on ${PORT:-0}" >&2 ;;
  *) echo "starting ARGS8 on ${PORT:-0}" >&2 ;;
esac
fi
python -m sglang.launch_server \
  --ep-dispatch-algorithm \
  dynamic \
  --dcp-replicate-q-proj \
  --kt-num-gpu-experts \ 
  '30000' \
  --num-continuous-decode-steps \
  '-1' \
  --language-only \
  # a comment inside the continuation
  --api-key=pwZnJuPvoEy7is \
  "$@"
while [ "$#" -gt 0 ]; do
  echo "starting MODEL10 on ${PORT:-0}" >&2
  shift
done
