# https://github.com/vllm-project/vllm/issues/16409 (vLLM 0.8.5, 2025-05-13: "when i used --kv-transfer-config, the engine was not worked": the V0 PyNcclConnector on the V1 engine 0.8.5 runs by default)
CUDA_VISIBLE_DEVICES=0 \
vllm serve \
/work/Qwen2___5-0___5B-Instruct \
--port 8100 \
--gpu-memory-utilization 0.4 \
--tensor-parallel-size 1 \
--trust-remote-code \
--enable-chunked-prefill \
--kv-transfer-config \
'{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2,"kv_buffer_size":5e9}'
