# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/10258 (2025-09-10, merged), seen 2026-12-05: a correct launch: the PR's Python start of Qwen3-Next with a bfloat16 Mamba SSM state (--mamba-ssm-dtype bfloat16) and the hybrid linear-attention backend, as posted (its shared model directory kept).
import sys
from sglang.srt.entrypoints.http_server import launch_server
from sglang.srt.server_args import prepare_server_args

if __name__ == "__main__":
    # Simulate CLI arguments (excluding the script name)
    args = [
        "--model-path",
        "/shared/public/sharing/sglanglearning/Qwen-SGlang/Qwen3-Next-80B-A3B-Instruct",
        "--tp",
        "8",
        "--attention-backend",
        "hybrid_linear_attn",
        "--trust-remote-code",
        "--mamba-ssm-dtype",
        "bfloat16"
    ]
    server_args = prepare_server_args(args)
    launch_server(server_args)
