# https://github.com/vllm-project/vllm/issues/18933 -- 2025-05-30, vLLM ~0.9.0 on V100 (compute capability 7.0), nixl 0.2.1: the NIXL toy-proxy script fails "assert issubclass(connector_cls, KVConnectorBase)" -- V100 runs the V0 engine, whose connector factory takes only V0 connectors; NixlConnector is a V1 connector. SIDE_CHANNEL_PORT is the script's own variable (its value is not shown).
VLLM_NIXL_SIDE_CHANNEL_PORT=$SIDE_CHANNEL_PORT \
VLLM_ENABLE_V1_MULTIPROCESSING=1 \
VLLM_WORKER_MULTIPROC_METHOD=spawn \
VLLM_TORCH_PROFILER_DIR=/vllm-workspace/decode \
vllm serve /Qwen3-1.7B \
--port 8000 \
--enforce-eager \
--disable-log-requests \
--gpu-memory-utilization 0.9 \
--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
