#!/bin/bash
# Reconstructed (not copied) after https://cookbook.openai.com/articles/gpt-oss/run-vllm (Quick Setup), seen 2026-12-01: the uv virtual environment, its activation, the `uv pip install --pre vllm==0.10.1+gptoss` line with its extra indexes, and `vllm serve openai/gpt-oss-20b`.
uv venv --python 3.12 --seed
source .venv/bin/activate
uv pip install --pre vllm==0.10.1+gptoss \
    --extra-index-url https://wheels.vllm.ai/gpt-oss/ \
    --extra-index-url https://download.pytorch.org/whl/nightly/cu128 \
    --index-strategy unsafe-best-match

vllm serve openai/gpt-oss-20b
