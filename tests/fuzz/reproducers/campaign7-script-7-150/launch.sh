
case "$1" in
  a|b) ARGS2=(--a 1 "b c" ${X:-d}) ;;
  *) export VLLM_USE_V1=0,1,2,3 ;;
esac
ARGS4=$(echo $(echo q))
# --port 1 is ignored
fV6() {
  mkdir -p @DIR@/logs
}
fV6 a b
ARGS8=`touch @DIR@/MARK_backtick_script-7-150`
MODEL9=(--a 1 "b c" ${X:-d})
# --port 1 is ignored
bash -c 'touch @DIR@/MARK_bashc_script-7-150'
sglang serve --enable-response-store --enable-mscclpp --modelexpress-config 'a b' --admin-api-key Zq7AWo0cxxaVmQXJxFKWPb7U9uf
MODEL11='0,1'

