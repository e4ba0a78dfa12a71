# https://github.com/vllm-project/vllm-ascend/issues/3749 -- vllm 0.11.0 + vllm-ascend 0110-dev, 2025-10: with cards 4,5 the worker hangs at the first request, with cards from 0 it works; the maintainers (2026-05): fixed in later releases (a framework bug); --model and --host/--port were elided in the report (xxxx)
export ASCEND_RT_VISIBLE_DEVICES=4,5 && python -m vllm.entrypoints.openai.api_server --model /xxxx \
--max-num-seqs=256 \
--max-model-len=16384 \
--enable-auto-tool-choice \
--tool-call-parser hermes \
--max-num-batched-tokens=16384 \
--dtype=bfloat16 \
--tensor-parallel-size=2 \
--block-size=128 \
--gpu-memory-utilization=0.98 \
--trust-remote-code \
--served-model-name="Qwen3-8B"
