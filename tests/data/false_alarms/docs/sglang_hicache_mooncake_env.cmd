# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0712681af22229d925129aea9fd6691b69ed007d/docs/advanced_features/hicache_best_practices.md (Deployment with Mooncake), seen 2026-12-02: the five exports and the server flags with their values, the server re-typed as one command line.
# release: sglang 0.5.23 (the page names no release and its commit is not dated here: the newest bundled release on which every command taken from the page is accepted (flags, choices, variables, KV connectors and config keys by the schemas generated from the wheels), the page's era by its own flags: sglang 0.5.3.post3-0.5.23)
# the reader sets: MODEL_PATH=Qwen/Qwen3-235B-A22B-Instruct-2507 (the page's own ${...} placeholders, passed as --env; without them bash drops each unquoted empty word and SH007 says so)
export MOONCAKE_TE_META_DATA_SERVER="http://127.0.0.1:8080/metadata"
export MOONCAKE_GLOBAL_SEGMENT_SIZE=816043786240
export MOONCAKE_PROTOCOL="rdma"
export MOONCAKE_DEVICE="$DEVICE_LIST"
export MOONCAKE_MASTER=127.0.0.1:50051
python3 -m sglang.launch_server --model-path $MODEL_PATH --tp 8 --page-size 64 --enable-hierarchical-cache --hicache-ratio 2 --hicache-mem-layout page_first --hicache-io-backend kernel --hicache-storage-backend mooncake --hicache-write-policy write_through --hicache-storage-prefetch-policy timeout
