# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md (Using pip), seen 2026-12-01: the server flags with their values, re-typed as one command line (no doc prose).
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code
