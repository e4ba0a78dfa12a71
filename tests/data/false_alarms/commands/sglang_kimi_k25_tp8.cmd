# Reconstructed (not copied) after https://docs.sglang.io/docs/basic_usage/kimi_k2_5.md (Launch Kimi-K2.5 with SGLang), seen 2026-12-01: the single-node TP8 server flags with the kimi_k2 parsers, re-typed as one command line (no doc prose).
python3 -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --trust-remote-code --tool-call-parser kimi_k2 --reasoning-parser kimi_k2
