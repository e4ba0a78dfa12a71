# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/12132 (2025-01-16, description, vLLM main after 0.6.4.post1, four GH200 nodes with one GPU each), seen 2026-12-02: the command; error "please set tensor_parallel_size (4) to less than max local gpu count (1)".
python3 -m vllm.entrypoints.openai.api_server --model /models/my-model \
	--tensor-parallel-size 4 \
	--gpu-memory-utilization 0.95 \
	--served-model-name my-model \
	--trust-remote-code \
	--api-key "NONE" \
	--rope-scaling '{"rope_type":"dynamic","factor":4.0}' \
	--enable-prefix-caching \
	--max-model-len 131072
