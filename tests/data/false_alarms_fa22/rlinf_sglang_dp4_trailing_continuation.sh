# Reconstructed (not copied) after https://github.com/RLinf/RLinf/blob/f1bf875a2fd347e19bc9dc38a201a6d25e908c52/examples/wideseek_r1/qwen3-30b-a3b.sh, seen 2026-12-04: the proxy variables unset, then the server whose last line `--dp 4 \` continues into a line of blanks at the end of the file (no newline).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

python3 -m sglang.launch_server \
    --model-path /mnt/project_rlinf/fuxu/instruct_qwen3_30b_a3b/Qwen3-30B-A3B-Instruct-2507/ \
    --host 0.0.0.0 --log-level info \
    --context-length 32768 \
    --dp 4 \
    