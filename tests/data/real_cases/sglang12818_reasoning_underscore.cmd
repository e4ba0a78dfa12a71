# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/12818, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
python -m sglang.launch_server --model-path /moonshotai/Kimi-K2-Thinking --tp 8 --disable-radix-cache --trust-remote-code --tool-call-parser kimi_k2 --reasoning_parser kimi_k2 --context-length 262144
