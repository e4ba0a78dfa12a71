# source: https://github.com/sgl-project/sglang/pull/2863 (2025-01-13, comment of the PR's author) "add qwen2 eagle model"
# Correct launch: "I test Qwen/Qwen2-7B-Instruct with 1*H20 ... eagle: 110.81 token/s. Without cuda graph and torch compile."
# Stand-in: the same command as sglang2863_qwen2_7b_eagle_topk8_h20.cmd with --disable-cuda-graph (what "without cuda graph" means in SGLang).
# GPU: one H20. Model config: models/qwen2-7b-instruct.
python -m sglang.launch_server --model Qwen/Qwen2-7B-Instruct --speculative-algo EAGLE --speculative-draft yuhuili/EAGLE-Qwen2-7B-Instruct-sglang --speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64 --mem-fraction 0.7 --disable-cuda-graph
