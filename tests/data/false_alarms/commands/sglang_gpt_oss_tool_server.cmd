# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0351c1fafe4c53c91c331dea205af48b018af559/docs/basic_usage/gpt_oss.md (Launch the server with the demo tool server), seen 2026-12-01: the server flags with their values, re-typed as one command line (no doc prose).
python3 -m sglang.launch_server --model-path openai/gpt-oss-120b --tool-server demo --tp 2
