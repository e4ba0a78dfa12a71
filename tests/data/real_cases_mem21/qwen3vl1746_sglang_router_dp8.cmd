# source: https://github.com/QwenLM/Qwen3-VL/issues/1746 (2025-11-02) "qwen3 vl 235b instuct sglang 部署 爆显存" (out of GPU memory)
# GPU: 8x H800 ("是8*h800"). Release: not named. The maintainers' answer: use the README's `--tp 8`. Model config:
# models/qwen3-vl-235b-a22b (bf16; text dimensions as public Megatron arguments for Qwen3-VL-235B-A22B-Instruct quote them).
python3 -m sglang_router.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --dp-size 8 --host 0.0.0.0 --port 8001 --router-worker-startup-timeout-secs 3600 --router-prometheus-port 29000
