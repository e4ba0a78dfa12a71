# source: https://github.com/SemiAnalysisAI/InferenceX/issues/1587 (2026-05-29) "[vLLM] Missing --max-model-len guard for offload-disabled agentic runs causes KV cache OOM on H100"
# GPU: 8x H100, TP=8. Model: Kimi-K2.5 INT4 (its config.json is not at hand). "without --max-model-len, vLLM defaults to the model's full
# context length (262,144 tokens), which requires 8.58 GiB of KV cache". The launch of benchmarks/single_node/agentic/kimik2.5_int4_h100.sh
# (https://github.com/SemiAnalysisAI/InferenceX/blob/11e31a2e775791db3bc497dce502a9f809714ee2/benchmarks/single_node/agentic/kimik2.5_int4_h100.sh)
# with offloading off and TP=8 as the issue runs it; CONC left as the variable.
export VLLM_USE_FLASHINFER_MOE_INT4=1
vllm serve moonshotai/Kimi-K2.5 --served-model-name moonshotai/Kimi-K2.5 --host 0.0.0.0 --port 8888 --gpu-memory-utilization 0.95 --tensor-parallel-size 8 --max-num-seqs $CONC --reasoning-parser kimi_k2 --tool-call-parser kimi_k2 --compilation_config.pass_config.fuse_allreduce_rms true --kv-cache-dtype fp8 --trust-remote-code
