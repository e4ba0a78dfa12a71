# Reconstructed (not copied) after https://github.com/shun8686/sglang/blob/106427bf7e11fa58e4d4091142faefed8bf575a7/test/manual/ascend/deepseekr1_router.sh, seen 2026-12-04: the router in front of one prefill and one decode server: `nohup \` on a line of its own, `--prefill URL 8995\` (the bootstrap port, no blank before the backslash), the log redirection and `& \` ending the file (kept: the whole launch)
export logfile="./launch_router_$(date +'%Y-%m-%d-%H:%M').log"

nohup \
python -u -m sglang_router.launch_router \
    --pd-disaggregation \
    --host 127.0.0.1 \
    --port 6688 \
    --prefill http://192.168.0.184:8000 8995\
    --decode http://192.168.0.60:8000 \
> $logfile 2>&1 & \
