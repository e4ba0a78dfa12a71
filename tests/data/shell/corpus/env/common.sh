# shared settings
export NCCL_DEBUG=WARN
export SGLANG_LOG_LEVEL=info
PORT=30000
LOG_LEVEL=${LOG_LEVEL:-info}
