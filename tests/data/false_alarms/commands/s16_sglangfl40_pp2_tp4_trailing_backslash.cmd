# Reconstructed (not copied) after https://github.com/flagos-ai/sglang-plugin-FL/pull/40 (usage: the server the benchmark ran against), seen 2026-12-03: tp 4 x pp 2, --disable-piecewise-cuda-graph, qwen3 reasoning parser, the CUDA graph size and flashinfer sampling; the block's last line ends with a backslash.
python3 -m sglang.launch_server \
            --model-path /models/Qwen3.6-35B-A3B \
            --tp-size 4 --pp-size 2 \
            --host 0.0.0.0 --port 30000 \
            --disable-piecewise-cuda-graph \
            --trust-remote-code \
            --mem-fraction-static 0.75 \
            --reasoning-parser qwen3 \
            --cuda-graph-max-bs 70 \
            --sampling-backend flashinfer \
