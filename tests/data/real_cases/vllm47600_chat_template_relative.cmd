# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/47600 (vllm 0.24.0; the report quotes the template path, the model is the recipe's), seen 2026-12-02: the command line as the report shows it (placeholders where it redacts).
vllm serve google/gemma-4-31B-it --chat-template examples/tool_chat_template_gemma4.jinja
