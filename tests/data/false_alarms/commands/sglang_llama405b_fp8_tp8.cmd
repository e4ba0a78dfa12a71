# Reconstructed (not copied) after https://docs.sglang.io/docs/references/multi_node_deployment/multi_node.md (Llama 405B fp8 on a single node), seen 2026-12-01: the one-line launch with `python -m` and --tp 8.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 --tp 8
