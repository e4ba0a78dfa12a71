# https://github.com/speakleash/bielik-tools (README.md, "Reasoning", as of PR#11 of 2026-05-04, which dropped --enable-reasoning from it: the reasoning parser bielik is registered by the --reasoning-parser-plugin file)
vllm serve speakleash/Bielik-11B-v3.0-Instruct \
    --chat-template ./bielik-tools/tools/bielik_advanced_chat_template.jinja \
    --reasoning-parser-plugin ./bielik-tools/tools/bielik_vllm_reasoning_parser.py \
    --reasoning-parser bielik
