# Copied from https://github.com/vllm-project/vllm/issues/23684 (comment of 2026-04-28; seen 2026-12-03): "when running the vllm server by terminal" the commenter gives these two lines; the backslash joins them, so `vllm serve ...` are arguments of `export`, which exports `vllm` and `serve` and refuses `Qwen/Qwen3.5-4B` and `--port` ("not a valid identifier", status 1): no server starts. No release is named.
export HF_HUB_OFFLINE=1 \
 vllm serve "Qwen/Qwen3.5-4B" --port 8020
