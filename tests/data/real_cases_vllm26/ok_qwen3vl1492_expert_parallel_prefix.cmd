# https://github.com/QwenLM/Qwen3-VL/issues/1492 -- 2025-09-24: the README's launch wrote `--enable-expert-paralle`; argparse (allow_abbrev, vLLM's FlexibleArgumentParser keeps it) takes a unique prefix of a long option, so the server starts with expert parallelism on (the README was corrected as a typo).
python -m vllm.entrypoints.openai.api_server \
  --model Qwen/Qwen3-VL-235B-A22B-Instruct\
  --served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --mm-encoder-tp-mode data \
  --enable-expert-paralle \
  --host 0.0.0.0 \
  --port 22002 \
  --dtype bfloat16 \
  --gpu-memory-utilization 0.70 \
  --quantization fp8 \
  --distributed-executor-backend mp
