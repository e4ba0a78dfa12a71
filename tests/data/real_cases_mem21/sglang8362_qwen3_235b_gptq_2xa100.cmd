# source: https://github.com/sgl-project/sglang/issues/8362 (2025-07-25) "[Bug] Serve Qwen3-GPTQ with OOM issue"
# GPU: 2x A100 80 GB. Release: not named. "the same model can be served using VLLM on the same 2A100 GPUs machine"; with and without
# CUDA graphs, several fractions. Model config: models/qwen3-235b-a22b-gptq-int4. The command ends where the part returned is cut.
python -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-GPTQ-Int4 --tp 2 --mem-fraction 0.85 --host 0.0.0.0 --port 8000 --context-len 32768 --chunked-prefill-size 32768 --disable-cuda-graph
