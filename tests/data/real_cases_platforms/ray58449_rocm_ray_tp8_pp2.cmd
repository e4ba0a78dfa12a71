# https://github.com/ray-project/ray/issues/58449 -- ROCm 7.1, Ray 2.48.0, vLLM 0.10.2, 2 nodes of 16 R9700, 2025-11: "invalid device ordinal" after a Ray upgrade; a comment: set CUDA_VISIBLE_DEVICES and unset ROCR_VISIBLE_DEVICES (Ray refuses ROCR_VISIBLE_DEVICES without HIP_VISIBLE_DEVICES); the reporter: not solved
VLLM_WORKER_MULTIPROC_METHOD=spawn vllm serve /home/amd/model2/Qwen3-235B-A22B-Instruct-2507/ \
--block-size 16 \
--enable-chunked-prefill  \
--max-num-batched-tokens 256  \
--max-num-seqs 256  \
--max-model-len 8192  \
--trust-remote-code  \
-tp 8 -pp 2  \
--distributed-executor-backend ray
