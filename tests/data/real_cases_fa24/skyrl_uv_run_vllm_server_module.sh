# Reconstructed (not copied) after https://github.com/yashm-cerebras/SkyRL/blob/b539ee9598863bf6e11be94c61b872a90b2e2a48/skyrl-train/examples/remote_inference_engine/run_vllm_server.sh, seen 2026-12-04: no shebang, `set -x`, `CUDA_VISIBLE_DEVICES=4,5,6,7 uv run --isolated --extra vllm -m skyrl_train.inference_engines.vllm.vllm_server` (SkyRL's server around vLLM's parser) with `--max-num_batched_tokens`, `--enable-sleep-mode`, `--worker-extension-cls`, no final newline.
# runs the SkyRL remote vLLM server on 4 GPUs
set -x

# the ray executor has an issue with vllm 0.9.2 here, so mp is used for the standalone server
CUDA_VISIBLE_DEVICES=4,5,6,7 uv run --isolated --extra vllm -m skyrl_train.inference_engines.vllm.vllm_server \
    --model Qwen/Qwen2.5-1.5B-Instruct \
    --tensor-parallel-size 4 \
    --host 127.0.0.1 \
    --port 8001 \
    --seed 42 \
    --max-model-len 4096 \
    --enable-prefix-caching \
    --enable-chunked-prefill \
    --dtype bfloat16 \
    --gpu-memory-utilization 0.9 \
    --enable-sleep-mode \
    --max-num_batched_tokens 8192 \
    --max-num-seqs 1024 \
    --trust-remote-code \
    --distributed-executor-backend mp \
    --worker-extension-cls skyrl_train.inference_engines.vllm.vllm_engine.WorkerWrap