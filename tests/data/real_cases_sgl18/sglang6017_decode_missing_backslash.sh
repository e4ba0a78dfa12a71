# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/6017 (comment of 2025-05-23), seen 2026-12-03: a 1P1D decode launch on two 8xH20 nodes dies at CUDA graph capture with "Assertion error ... deep_ep.cpp:1030 'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'". As posted, the line "--enable-deepep-moe --deepep-mode low_latency" has no trailing backslash: the command ends there, and --cuda-graph-bs 128, --max-running-requests and the rest below are never passed (run as a separate command). Variables as posted.
python3 -m sglang.launch_server --model-path ${model_path} \
	--disaggregation-mode decode \
	--dist-timeout 3600 \
	--disaggregation-transfer-backend mooncake \
	--trust-remote-code \
	--dist-init-addr ${master_ip_port} \
	--nnodes ${num_decode} --node-rank ${node_rank} --tp-size $((${num_decode}*8)) \
	--dp-size $((${num_decode}*8)) --enable-dp-attention \
	--enable-deepep-moe --deepep-mode low_latency
	--mem-fraction-static 0.82 \
	--max-running-requests $((${num_decode}*2048)) --context-length 4500 \
	--enable-two-batch-overlap \
	--moe-dense-tp-size 1 --cuda-graph-bs 128 --disable-radix-cache --decode-log-interval 1 \
	--host 0.0.0.0 --port 40000 \
	--disaggregation-ib-device ${device_name} \
	--init-expert-location ${location_file}
