# https://github.com/vllm-project/vllm/pull/32314 (2026-01-14: hybrid load balancing, the second server, ranks 2-3; release not named)
CUDA_VISIBLE_DEVICES=2,3 vllm serve  Qwen/Qwen2.5-7B-Instruct --port 8002 --data-parallel-size 4 --data-parallel-start-rank 2 --data-parallel-size-local 2  --data-parallel-hybrid-lb --enforce-eager
