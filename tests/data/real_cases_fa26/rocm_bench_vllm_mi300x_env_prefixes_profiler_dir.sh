# Reconstructed (not copied) after https://github.com/seungrokj/bench_vllm/blob/5a83da2b42c964189f201911eb298b782363fc5f/0_server_prof.sh, seen 2026-12-04: no shebang, Llama 3.1 70B on 8 MI300X, five NAME=value prefixes (HSA_NO_SCRATCH_RECLAIM, VLLM_USE_V1, the torch profiler directory) before `vllm serve $LLAMA_DIR`, a blank after the last flag (kept: the structure and the flags)
export LLAMA_DIR=/models/Llama-3.1-70B-Instruct

HSA_NO_SCRATCH_RECLAIM=1 VLLM_USE_V1=1 VLLM_WORKER_MULTIPROC_METHOD=spawn SAFETENSORS_FAST_GPU=1  VLLM_TORCH_PROFILER_DIR=./vllm_mi300x_random_req4_con4_isl1000_osl10_HSA vllm serve $LLAMA_DIR \
     --tensor-parallel-size 8 \
     --gpu-memory-utilization 0.9 \
     --disable-log-requests \
     --swap-space 16 \
     --no-enable-prefix-caching \
     --max-num-batched-tokens 8192 \
     --max-num-seqs 1024 
