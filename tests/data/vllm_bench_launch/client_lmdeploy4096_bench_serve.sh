# https://github.com/InternLM/lmdeploy/issues/4096 (2025-11-03, closed), seen 2026-12-05: `vllm bench serve` used as a load generator against a model lmdeploy serves: a client of a running server, not a server start. The call as posted; its variables are the report's (set elsewhere in the reporter's script), with stand-in values set here.
url_line=http://127.0.0.1:23333
modelname=qwen
TOKEN_PATH=/models/qwen
concurrency=8
input_len=1024
output_len=512
numprompts=64
log_file=bench.log
vllm bench serve \
        --backend openai-chat \
        --base-url $url_line \
        --endpoint /v1/chat/completions \
        --model $modelname \
        --ready-check-timeout-sec 10 \
        --dataset-name random \
        --request-rate inf \
        --tokenizer $TOKEN_PATH \
        --random-range-ratio 0 \
        --metric-percentiles "50,90,99" \
        --max-concurrency "$concurrency" \
        --random-input-len $input_len \
        --random-output-len $output_len \
        --num-prompts $numprompts 2>&1 | tee "$log_file"
