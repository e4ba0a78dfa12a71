# https://github.com/speakleash/bielik-tools (README.md, "Tool Calling", as of PR#11 of 2026-05-04: the tool-call parser bielik is registered by the --tool-parser-plugin file the command names)
vllm serve Bielik-11B-v2.5-Instruct \
    --enable-auto-tool-choice \
    --tool-parser-plugin ./bielik-tools/tools/bielik_vllm_tool_parser.py \
    --tool-call-parser bielik \
    --chat-template ./bielik-tools/tools/bielik_advanced_chat_template.jinja
