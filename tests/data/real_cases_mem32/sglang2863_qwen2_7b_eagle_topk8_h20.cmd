# source: https://github.com/sgl-project/sglang/pull/2863 (2025-01-13, comment of the PR's author) "add qwen2 eagle model"
# GPU: one H20 (96 GB). Release: SGLang of January 2025 (the PR's branch), not named.
# The report: "For Qwen/Qwen2-7B-Instruct and yuhuili/EAGLE-Qwen2-7B-Instruct, When enable cuda graph got OOM error on H20 96GB";
# the same run "Without cuda graph and torch compile" works (ok_sglang2863_qwen2_7b_eagle_no_cuda_graph.cmd).
# Model config: models/qwen2-7b-instruct (Qwen2-7B-Instruct's dimensions as public code quotes them, see README.md).
python -m sglang.launch_server --model Qwen/Qwen2-7B-Instruct --speculative-algo EAGLE --speculative-draft yuhuili/EAGLE-Qwen2-7B-Instruct-sglang --speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64 --mem-fraction 0.7
