# Reconstructed (not copied) after https://github.com/zaidalyafeai/curator/blob/00d976e393cb2ecbd3865181d802793d118c2633/examples/vllm-online/start_vllm_server.sh, seen 2026-12-03: HOST/PORT/MODEL_PATH, the server command kept in a multi-line string and started with `bash -c "${CMD}" &`, then a fixed sleep.
HOST=localhost
PORT=8787
MODEL_PATH="/path/to/Qwen/Qwen2.5-3B-Instruct"
CMD="
    vllm serve \
        ${MODEL_PATH} \
        --host ${HOST} \
        --port ${PORT} \
        --api-key token-abc123
        "
bash -c "${CMD}" &
sleep 60
