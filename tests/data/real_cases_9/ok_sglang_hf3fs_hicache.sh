# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/main/benchmark/hf3fs/bensh.sh, seen 2026-12-02: the benchmark's server launch with HiCache and the hf3fs storage backend (its config file through SGLANG_HICACHE_HF3FS_CONFIG_PATH); the benchmark clients are left out.
export SGLANG_HICACHE_HF3FS_CONFIG_PATH=/sgl-workspace/sglang/benchmark/hf3fs/hf3fs.json
python3 -m sglang.launch_server \
    --model-path /code/models/Qwen3-32B/ \
    --host 0.0.0.0 --port 33301 \
    --page-size 64 \
    --enable-hierarchical-cache \
    --hicache-ratio 2 --hicache-size 0 \
    --hicache-write-policy write_through \
    --hicache-storage-backend hf3fs
