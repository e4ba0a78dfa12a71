# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/17880 (2026-01-28, closed), seen 2026-12-05: "How to run DeepSeek-V3.1-FP4 on RTX pro 6000D?": nvidia/DeepSeek-V3.1-FP4 on eight NVIDIA RTX 6000D (compute capability 12.0) with the trtllm_mla attention backend, the flashinfer_trtllm MoE runner and modelopt_fp4; "every combination" of --moe-runner-backend, --attention-backend and --fp4-gemm-backend met "some incompatible issue" (no error text quoted). The command as posted (the exports and the nohup line); /data/DeepSeek-V3.1-NVFP4/main is the report's local path; the GPU is given as the rtx-pro-6000 profile (the same compute capability 12.0; the 6000D's memory is a stand-in).
export TOKEN_USAGE_REJECT_ENABLE=true
export SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION=4096
export TOOL_CALL_THINKING_DISABLE=true
export CLOG_LEVEL=INFO
export CLOG_ENABLE=false
export MAX_NEW_TOKENS_MAX=32768
export MAX_NEW_TOKENS_DEFAULT=4096
export http_proxy=
export https_proxy=
export SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD=0

nohup python -m sglang.launch_server --enable-metrics \
  --trust-remote-code \
  --mem-fraction-static 0.8 \
  --tp 8 \
  --reasoning-parser deepseek-v3 \
  --tool-call-parser deepseekv31 \
  --watchdog-timeout 1000000 \
  --context-length 131072 \
  --page-size 64 \
  --disable-cuda-graph \
  --quantization modelopt_fp4 \
  --moe-runner-backend flashinfer_trtllm \
  --attention-backend trtllm_mla \
  --fp4-gemm-backend flashinfer_cutlass \
  --disable-flashinfer-autotune \
  --served-model-name DeepSeek-V3.1-NVFP4/main \
  --chat-template /data/DeepSeek-V3.1-NVFP4/main/assets/chat_template.jinja \
  --host 0.0.0.0 \
  --port 8080 \
  --model-path /data/DeepSeek-V3.1-NVFP4/main > 6000d.log 2>&1 &
