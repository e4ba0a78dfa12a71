# source: https://github.com/QwenLM/Qwen3-VL/issues/1489 (2025-09-24 comment by wulipc) "8*A100 (80G) deploy Qwen3vl 235B-A22B-Instruct cuda OOM"
# The maintainer's launch: "we've tested and confirmed that FP8 runs properly on an H100 with 80GB of GPU memory" (8x H100, vLLM 0.10.2+).
# Model config: models/qwen3-vl-235b-a22b (bf16 checkpoint, quantized online by --quantization fp8).
python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-VL-235B-A22B-Instruct --served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct --tensor-parallel-size 8 --mm-encoder-tp-mode data --enable-expert-parallel --host 0.0.0.0 --port 22002 --dtype bfloat16 --gpu-memory-utilization 0.70 --quantization fp8 --distributed-executor-backend mp
