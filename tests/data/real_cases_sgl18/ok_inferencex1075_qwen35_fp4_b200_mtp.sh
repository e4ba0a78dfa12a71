# Reconstructed (not copied) after https://github.com/SemiAnalysisAI/InferenceX/pull/1075 (2026-04-18, merged), seen 2026-12-03: a correct launch: the B200 benchmark of Qwen3.5 NVFP4 with MTP (EAGLE), trtllm_mha and flashinfer_trtllm MoE, radix cache off. The review shows the flags from --quantization on; the values of the variables, the model path, the port and the last flag (--speculative-num-draft-tokens 4) are stand-ins, and EXTRA_ARGS is empty.
MODEL=nvidia/Qwen3.5-397B-A17B-NVFP4
TP=4
PORT=8888
CUDA_GRAPH_MAX_BATCH_SIZE=256
MAX_RUNNING_REQUESTS=256
MEM_FRAC_STATIC=0.85
CHUNKED_PREFILL_SIZE=16384
MAX_PREFILL_TOKENS=16384
CONTEXT_LENGTH=10240
SCHEDULER_RECV_INTERVAL=10
EXTRA_ARGS=
PYTHONNOUSERSITE=1 python3 -m sglang.launch_server --model-path $MODEL --host 0.0.0.0 --port $PORT --trust-remote-code \
--tensor-parallel-size=$TP --data-parallel-size=1 \
--quantization modelopt_fp4 --fp4-gemm-backend flashinfer_cutlass \
--kv-cache-dtype fp8_e4m3 \
--mamba-ssm-dtype bfloat16 \
--cuda-graph-max-bs $CUDA_GRAPH_MAX_BATCH_SIZE --max-running-requests $MAX_RUNNING_REQUESTS \
--mem-fraction-static $MEM_FRAC_STATIC --chunked-prefill-size $CHUNKED_PREFILL_SIZE --max-prefill-tokens $MAX_PREFILL_TOKENS \
--context-length $CONTEXT_LENGTH --disable-radix-cache \
--attention-backend trtllm_mha --moe-runner-backend flashinfer_trtllm \
$EXTRA_ARGS --scheduler-recv-interval $SCHEDULER_RECV_INTERVAL \
--tokenizer-worker-num 6 --stream-interval 30 \
--speculative-algorithm EAGLE \
--speculative-num-steps 3 \
--speculative-eagle-topk 1 \
--speculative-num-draft-tokens 4
