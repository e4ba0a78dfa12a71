# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/4880 (comment of 2025-04-21), seen 2026-12-03: a correct launch of that time: a Mooncake PD prefill server configured by MOONCAKE_CONFIG_PATH (removed later by PR#5460, as the thread says), TP 2.
export ip=30.246.241.218
MOONCAKE_CONFIG_PATH=./mooncake.json python -m sglang.launch_server --model-path /Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 --disaggregation-mode prefill --port 30000 --host ${ip} --tp-size 2
