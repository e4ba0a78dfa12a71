# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/37677 (2026-03-20: the load formats the check allowed for an object storage URI, "runai_streamer and runai_streamer_sharded")
vllm serve s3://my-bucket/vllm/facebook/opt-125m/v1 --load-format runai_streamer
