#!/bin/bash
# Reconstructed after https://github.com/llm-d/llm-d/issues/2433 (image lmsysorg/sglang:v0.5.16, model openai/gpt-oss-120b): the guide's SGLang prefill (TP 1) and decode (TP 4) servers with the NIXL backend, written as two lines of one script (the guide runs them as pods; only the settings the report names are kept). SGLang refuses the first KV transfer: "PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid models yet" (disaggregation/nixl/conn.py); the fix (llm-d#2442) gives both TP 2.
python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp 1 --disaggregation-mode prefill --disaggregation-transfer-backend nixl --port 8000 &
python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tp 4 --disaggregation-mode decode --disaggregation-transfer-backend nixl --port 8200 &
wait
