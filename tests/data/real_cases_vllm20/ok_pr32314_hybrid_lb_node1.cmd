# https://github.com/vllm-project/vllm/pull/32314 (2026-01-14: hybrid load balancing, the first of two servers; release not named)
CUDA_VISIBLE_DEVICES=0,1 vllm serve  Qwen/Qwen2.5-7B-Instruct --port 8001 --data-parallel-size 4 --data-parallel-size-local 2  --data-parallel-hybrid-lb --enforce-eager
