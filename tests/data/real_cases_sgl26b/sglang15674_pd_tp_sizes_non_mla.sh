# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/15674 (2025-12-23), seen 2026-12-04: PD disaggregation of Qwen3-32B (non-MLA) on one machine with the Mooncake backend and prefill TP 2, decode TP 1 degrades at low load and crashes both servers under 128 concurrent requests; equal TP sizes (2:2) are stable, and MLA models (DeepSeek, Kimi) are fine with different sizes. The report's model, sizes and backend; ports, GPU ids and the router are stand-ins.
CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2 --disaggregation-mode prefill --disaggregation-transfer-backend mooncake --port 30000 &
CUDA_VISIBLE_DEVICES=2 python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 1 --disaggregation-mode decode --disaggregation-transfer-backend mooncake --port 30001 &
python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --port 8000 &
wait
